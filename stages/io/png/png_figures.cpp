// The png sink's figures, drawn from its sums (png_sink.cpp gathers them): the mean comodulogram,
// one panel per channel (per condition and channel with conditions), the contrast of two
// conditions, and ERPAC per phase band. Colour and outline come from one test in each.
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "stages/io/png/png_sink.hpp"

namespace pacflow::stages {

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Means of sums over counts at slot `slot` (a [slot][cell] layout).
std::vector<double> means(const std::vector<double>& sums, const std::vector<std::int64_t>& counts, std::size_t slot,
                          std::size_t cells) {
  std::vector<double> out;
  for (std::size_t k = 0; k < cells; ++k) {
    const std::size_t at = slot * cells + k;
    out.push_back(counts[at] ? sums[at] / static_cast<double>(counts[at]) : kNan);
  }
  return out;
}

}  // namespace

std::string PngSink::condition_name(std::int64_t group) const {
  const auto g = static_cast<std::size_t>(group);
  return g < condition_names_.size() ? condition_names_[g] : fmt::format("condition {}", group);
}

std::vector<bool> PngSink::significant_cells(std::size_t slot) const {
  if (!significance_ && !trial_test_) return {};
  const std::size_t cells = x_centres_.size() * y_centres_.size();
  const std::vector<std::int64_t>& hits = trial_test_ ? trial_hits_ : hits_;
  // The trial-level test has one p per segment of each condition and panel; the per-epoch one, per epoch.
  const std::int64_t needed = trial_test_ ? epochs_needed(inner_, alpha_) : needed_;
  std::vector<bool> out(cells);
  for (std::size_t k = 0; k < cells; ++k) out[k] = hits[slot * cells + k] >= needed;
  return out;
}

std::vector<PngSink::Figure> PngSink::figures() const {
  std::vector<Figure> out;
  if (comodulogram_) {
    out.push_back({path_, describe_output(path_), mean_figure()});
    if (grid_) out.push_back({grid_path(path_), describe_output(grid_path(path_)), grid_figure()});
    if (contrast_) out.push_back({contrast_path(path_), describe_output(contrast_path(path_)), contrast_figure()});
  }
  if (erpac_) out.push_back({erpac_path(path_), describe_output(erpac_path(path_)), erpac_figure()});
  return out;
}

plot::Canvas PngSink::mean_figure() const {
  const std::size_t cells = x_centres_.size() * y_centres_.size();
  // The trial-level test's z when it ran (the statistic its p-values outline), else pac_z or pac.
  const std::vector<double>& sums = colour_trial_ ? trial_sum_ : sum_;
  const std::vector<std::int64_t>& counts = colour_trial_ ? trial_count_ : count_;
  const std::int64_t groups = colour_trial_ ? groups_ : 1;
  std::vector<std::vector<double>> maps;  // one per condition
  for (std::int64_t g = 0; g < groups; ++g) {
    std::vector<double> values;
    for (std::size_t k = 0; k < cells; ++k) {
      double sum = 0;
      std::int64_t count = 0;
      for (std::int64_t c = 0; c < panels_; ++c) {
        const auto at = static_cast<std::size_t>(g * panels_ + c) * cells + k;
        sum += sums[at];
        count += counts[at];
      }
      values.push_back(count ? sum / static_cast<double>(count) : kNan);
    }
    maps.push_back(std::move(values));
  }
  const std::string over = colour_trial_ ? fmt::format("mean over {} {}s", panels_, panel_kind_) : "mean over " + over_;
  if (groups > 1) {  // each condition its own panel, on one colour scale
    plot::HeatmapGrid grid;
    for (std::int64_t g = 0; g < groups; ++g)
      grid.panels.push_back({condition_name(g) + " · " + over, maps[static_cast<std::size_t>(g)], {}});
    grid.x_centres = x_centres_;
    grid.y_centres = y_centres_;
    grid.title = fmt::format("z-score of the mean over each condition's epochs ({} in all) against epoch permutations",
                             trial_epochs_);
    grid.x_label = "phase frequency (Hz)";
    grid.y_label = "amplitude frequency (Hz)";
    grid.colorbar_label = colorbar_;
    return plot::render_grid(grid, 360, 280);
  }
  plot::Heatmap map;
  map.values = std::move(maps.front());
  map.x_centres = x_centres_;
  map.y_centres = y_centres_;
  map.title = fmt::format("{}, {}", what_, over);
  map.x_label = "phase frequency (Hz)";
  map.y_label = "amplitude frequency (Hz)";
  map.colorbar_label = colorbar_;
  return plot::render_heatmap(map);
}

std::string PngSink::grid_subtitle() const {
  const std::int64_t tests = epochs_ * inner_;  // one family-wise test per epoch (and segment)
  if (trial_test_)
    return fmt::format("outlined: p of the mean over {} ({}, {} epoch permutations) < {:g}{}",
                       groups_ > 1 ? std::string("each condition's epochs") : fmt::format("{} epochs", trial_epochs_),
                       trial_correction_, trial_permutations_, alpha_,
                       inner_ > 1 ? fmt::format(" in at least {} of {} segments", epochs_needed(inner_, alpha_), inner_)
                                  : "");
  if (!significance_) return "no surrogates ran: no significance outlines";
  if (tests == 1) return fmt::format("outlined: family-wise p (max over cells, {} surrogates) < {:g}", surrogates_, alpha_);
  return fmt::format("outlined: family-wise p (max over cells, {} surrogates) < {:g} in at least {} of {} {} "
                     "(binomial test at {:g})",
                     surrogates_, alpha_, needed_, tests, inner_ > 1 ? "epoch-segments" : "epochs", alpha_);
}

plot::Canvas PngSink::grid_figure() const {
  const std::size_t cells = x_centres_.size() * y_centres_.size();
  const std::vector<double>& sums = colour_trial_ ? trial_sum_ : sum_;
  const std::vector<std::int64_t>& counts = colour_trial_ ? trial_count_ : count_;
  const std::int64_t groups = colour_trial_ ? groups_ : 1;
  plot::HeatmapGrid grid;
  for (std::int64_t g = 0; g < groups; ++g)
    for (std::int64_t c = 0; c < panels_; ++c) {
      const auto slot = static_cast<std::size_t>(g * panels_ + c);
      const std::string& label = panel_labels_[static_cast<std::size_t>(c)];
      grid.panels.push_back({groups > 1 ? condition_name(g) + " · " + label : label, means(sums, counts, slot, cells),
                             significant_cells(slot)});
    }
  grid.x_centres = x_centres_;
  grid.y_centres = y_centres_;
  grid.title = colour_trial_ ? (groups > 1 ? fmt::format("z-score of each {}'s mean over each condition's epochs ({} in "
                                                         "all) against epoch permutations", panel_kind_, trial_epochs_)
                                          : fmt::format("z-score of each {}'s mean over {} epochs against epoch "
                                                        "permutations", panel_kind_, trial_epochs_))
                             : fmt::format("{} per {}, mean over {} epochs{}", what_, panel_kind_, epochs_,
                                           inner_ > 1 ? fmt::format(" and {} segments", inner_) : "");
  grid.subtitle = grid_subtitle();
  grid.x_label = "phase frequency (Hz)";
  grid.y_label = "amplitude frequency (Hz)";
  grid.colorbar_label = colorbar_;
  return plot::render_grid(grid);
}

plot::Canvas PngSink::contrast_figure() const {
  const std::size_t cells = x_centres_.size() * y_centres_.size();
  const std::int64_t needed = epochs_needed(inner_, alpha_);
  plot::HeatmapGrid grid;
  for (std::int64_t c = 0; c < panels_; ++c) {
    const auto slot = static_cast<std::size_t>(c);
    std::vector<bool> outlined(cells);
    for (std::size_t k = 0; k < cells; ++k) outlined[k] = contrast_hits_[slot * cells + k] >= needed;
    grid.panels.push_back({panel_labels_[slot], means(contrast_sum_, contrast_count_, slot, cells), outlined});
  }
  grid.x_centres = x_centres_;
  grid.y_centres = y_centres_;
  grid.title = fmt::format("z-score of the contrast {} minus {} per {} (contrast_z)", condition_name(0),
                           condition_name(1), panel_kind_);
  grid.subtitle = fmt::format("outlined: contrast_pvalues < {:g}{}", alpha_,
                              inner_ > 1 ? fmt::format(" in at least {} of {} segments", needed, inner_) : "");
  grid.x_label = "phase frequency (Hz)";
  grid.y_label = "amplitude frequency (Hz)";
  grid.colorbar_label = "z-score";
  return plot::render_grid(grid);
}

plot::Canvas PngSink::erpac_figure() const {
  plot::HeatmapGrid grid = plot::erpac_grid(erpac_sums_, erpac_axes_, erpac_needed_, plot::kErpacColumns);
  grid.title = fmt::format("ERPAC (circular-linear ρ across {} epochs) per phase band, mean over {} channel{}",
                           erpac_epochs_, erpac_rows_, erpac_rows_ == 1 ? "" : "s");
  grid.subtitle = erpac_rows_ == 1 ? fmt::format("outlined: corrected p (erpac_pvalues) < {:g}", alpha_)
                                   : fmt::format("outlined: corrected p (erpac_pvalues) < {:g} in at least {} of {} "
                                                 "channels (binomial test at {:g})",
                                                 alpha_, erpac_needed_, erpac_rows_, alpha_);
  if (!grid.x_markers.empty()) grid.subtitle += "; white line: the event, t = 0";
  return plot::render_grid(grid, 360, 180);
}

}  // namespace pacflow::stages
