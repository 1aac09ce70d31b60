#include "pipelines/group/group_figure.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <fmt/format.h>

#include "stages/io/png/comodulogram_plot.hpp"
#include "stages/io/png/erpac_plot.hpp"

namespace pacflow::group {

namespace {

const GroupArray* find(const GroupOutcome& outcome, const std::string& name) {
  for (const GroupArray& a : outcome.arrays)
    if (a.name == name) return &a;
  return nullptr;
}

// The name of index `i` along `dim`: a channel's or condition's name where the axes have it.
std::string index_name(const std::string& dim, std::size_t i, const FigureAxes& axes) {
  if (dim == "channels" && i < axes.channel_names.size()) return axes.channel_names[i];
  if (dim == "conditions" && i < axes.condition_names.size()) return axes.condition_names[i];
  return fmt::format("{} {}", dim, i);
}

// Panel p's label: its index along each axis before the last `cell_axes` (the bands), named
// ("nogo, Cz").
std::string panel_label(const GroupArray& t, std::size_t panel, const FigureAxes& axes, std::size_t cell_axes = 2) {
  const std::size_t leading = t.shape.size() - cell_axes;
  std::string label;
  std::size_t rest = panel;
  std::vector<std::string> parts(leading);
  for (std::size_t d = leading; d-- > 0;) {
    parts[d] = index_name(t.dims[d], rest % t.shape[d], axes);
    rest /= t.shape[d];
  }
  for (const std::string& part : parts) label += (label.empty() ? "" : ", ") + part;
  return label;
}

std::string title_of(const std::string& prefix, const std::string& statistic, std::int64_t subjects,
                     const FigureAxes& axes) {
  if (prefix == "group")
    return fmt::format("group t over {} subjects: coupling above each subject's own null ({})", subjects, statistic);
  const auto name = [&](std::size_t i) { return index_name("conditions", i, axes); };
  return fmt::format("group t over {} subjects: {} against {} (paired)", subjects, name(0), name(1));
}

// ERPAC's t [maps][n_pha][n_amp][T]: per map, the png sink's erpac grid of t (one panel per phase
// band), cells of clusters with p < alpha outlined; the maps' panels one after another.
plot::HeatmapGrid time_grid(const GroupArray& t, const GroupArray* p, const FigureAxes& axes, double alpha) {
  const std::size_t axes_count = t.shape.size();
  const auto n_pha = static_cast<std::int64_t>(t.shape[axes_count - 3]);
  const auto n_amp = static_cast<std::int64_t>(t.shape[axes_count - 2]);
  const auto length = static_cast<std::int64_t>(t.shape[axes_count - 1]);
  const auto cells = static_cast<std::size_t>(n_pha * n_amp * length);
  if (axes.times_s.size() != static_cast<std::size_t>(length))
    throw std::logic_error("group figure: the ERPAC times do not fit the statistic");
  plot::HeatmapGrid grid;
  for (std::size_t map = 0; map < t.values.size() / cells; ++map) {
    plot::ErpacSums sums;
    sums.reset(n_pha, n_amp, length);
    for (std::size_t c = 0; c < cells; ++c) {
      const double v = t.values[map * cells + c];
      sums.sum[c] = std::isnan(v) ? 0.0 : v;
      sums.count[c] = std::isnan(v) ? 0 : 1;
      sums.hits[c] = p && p->values.size() == t.values.size() && p->values[map * cells + c] < alpha ? 1 : 0;
    }
    sums.rows = 1;
    plot::HeatmapGrid one = plot::erpac_grid(sums, {axes.times_s, axes.pha_centres_hz, axes.amp_centres_hz}, 1,
                                             plot::kErpacColumns);
    const std::string where = panel_label(t, map, axes, 3);
    for (plot::HeatmapGrid::Panel& panel : one.panels) {
      panel.label = where + ", " + panel.label;
      grid.panels.push_back(std::move(panel));
    }
    if (map == 0) {
      grid.x_centres = one.x_centres;
      grid.y_centres = one.y_centres;
      grid.x_markers = one.x_markers;
    }
  }
  grid.x_label = "time (s)";
  return grid;
}

// t [maps][n_pha][n_amp]: a comodulogram per map, cells of clusters with p < alpha outlined.
plot::HeatmapGrid comodulogram_grid(const GroupArray& t, const GroupArray* p, const FigureAxes& axes, double alpha) {
  const std::size_t cells = t.shape[t.shape.size() - 2] * t.shape.back();
  const std::size_t panels = t.values.size() / cells;
  plot::HeatmapGrid grid;
  grid.x_centres = axes.pha_centres_hz;
  grid.y_centres = axes.amp_centres_hz;
  grid.x_label = "phase frequency (Hz)";
  for (std::size_t k = 0; k < panels; ++k) {
    plot::HeatmapGrid::Panel panel;
    panel.label = panel_label(t, k, axes);
    panel.values.assign(t.values.begin() + static_cast<std::ptrdiff_t>(k * cells),
                        t.values.begin() + static_cast<std::ptrdiff_t>((k + 1) * cells));
    if (p && p->values.size() == t.values.size())
      for (std::size_t c = 0; c < cells; ++c) panel.outlined.push_back(p->values[k * cells + c] < alpha);
    grid.panels.push_back(std::move(panel));
  }
  return grid;
}

constexpr std::array<const char*, 2> kTests{"group", "group_contrast"};

std::string figure_name(const std::string& prefix, plot::FigureFormat format) {
  return fmt::format("{}_t.{}", prefix, plot::extension_of(format));
}

}  // namespace

std::vector<std::string> group_figure_names(const std::vector<plot::FigureFormat>& formats) {
  std::vector<std::string> names;
  for (const char* prefix : kTests)
    for (const plot::FigureFormat format : formats) names.push_back(figure_name(prefix, format));
  return names;
}

std::vector<Figure> group_figures(const GroupOutcome& outcome, const FigureAxes& axes, std::int64_t subjects,
                                  double alpha, const std::filesystem::path& folder,
                                  const std::vector<plot::FigureFormat>& formats) {
  std::vector<Figure> figures;
  for (const std::string prefix : kTests) {
    const GroupArray* t = find(outcome, prefix + "_t");
    const GroupArray* p = find(outcome, prefix + "_cluster_pvalues");
    if (!t || t->shape.size() < 2) continue;
    const bool over_time = t->dims.back() == "times";
    if (over_time && t->shape.size() < 3) continue;
    plot::HeatmapGrid grid = over_time ? time_grid(*t, p, axes, alpha) : comodulogram_grid(*t, p, axes, alpha);
    grid.title = title_of(prefix, outcome.report.statistic, subjects, axes);
    grid.subtitle = fmt::format("outlined: clusters with p < {:g} ({}_cluster_pvalues, cluster mass over sign flips)",
                                alpha, prefix);
    grid.y_label = "amplitude frequency (Hz)";
    grid.colorbar_label = "t";
    const plot::Canvas figure = plot::render_grid(grid);
    for (const plot::FigureFormat format : formats) {
      const std::filesystem::path file = folder / figure_name(prefix, format);
      figures.push_back({file, figure.encode(format, file.string())});
    }
  }
  return figures;
}

}  // namespace pacflow::group
