#include "stages/io/png/png_sink.hpp"

#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "engine/errors.hpp"
#include "stages/io/common/output_paths.hpp"
#include "stages/io/png/comodulogram_plot.hpp"

namespace pacflow::stages {

namespace {
constexpr const char* kSignificance = "pvalues_maxstat";
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
}  // namespace

ElementInfo PngSink::info() {
  ElementInfo info;
  info.kind = ElementKind::Sink;
  info.name = "png";
  info.summary = "comodulogram heat map (mean over epochs and channels) and a per-channel grid, as PNGs";
  info.params = {
      {"path", ParamType::OutputFile, "out/pac/comodulogram.png", "", "image file to write"},
      {"grid", ParamType::Boolean, true, "",
       "also write STEM_channels.png beside it: one comodulogram per channel, averaged over epochs"},
      {"alpha", ParamType::Number, 0.05, "",
       "grid outlines cells whose family-wise p (pvalues_maxstat) < alpha in enough epochs (binomial test at alpha)"},
  };
  info.make_sink = [](const Params& p) { return std::make_unique<PngSink>(p); };
  return info;
}

PngSink::PngSink(const Params& params)
    : path_(params.string("path")), grid_(params.boolean("grid")), alpha_(params.number("alpha")) {
  if (!(alpha_ > 0 && alpha_ < 1)) throw ParamError("alpha", fmt::format("must be in (0, 1), got {}", alpha_));
}

std::filesystem::path PngSink::grid_path(const std::filesystem::path& path) {
  return path.parent_path() / (path.stem().string() + "_channels" + path.extension().string());
}

std::int64_t PngSink::epochs_needed(std::int64_t epochs, double alpha) {
  // Upper tail of Binomial(epochs, alpha), summed from the top: P[K >= k] for k = epochs, epochs - 1, …
  const auto n = static_cast<double>(epochs);
  double tail = 0;
  for (std::int64_t k = epochs; k >= 0; --k) {
    const auto kd = static_cast<double>(k);
    const double log_pmf = std::lgamma(n + 1) - std::lgamma(kd + 1) - std::lgamma(n - kd + 1) + kd * std::log(alpha) +
                           (n - kd) * std::log1p(-alpha);
    if (tail + std::exp(log_pmf) > alpha * (1 + 1e-12)) return k + 1;  // tolerance: P[K >= 1] = alpha for 1 epoch
    tail += std::exp(log_pmf);
  }
  return 0;  // unreachable for alpha < 1: P[K >= 0] = 1
}

void PngSink::plan(const PlanContext& ctx) {
  tensor_ = ctx.provides("pac_z") ? "pac_z" : "pac";
  const TensorDecl& decl = ctx.require(tensor_, "png");
  const json& attrs = ctx.attributes();
  if (!attrs.contains("pha_centres_hz") || !attrs.contains("amp_centres_hz") || decl.per_series.size() != 2)
    throw InputError("the png sink plots a [phase band][amplitude band] result; it needs bandpass and mi before it");
  x_centres_ = attrs["pha_centres_hz"].get<std::vector<double>>();
  y_centres_ = attrs["amp_centres_hz"].get<std::vector<double>>();
  const Shape& lead = ctx.stream().leading_dims;
  epochs_ = lead.at(0);
  channels_ = lead.at(1);
  const auto& labels = ctx.stream().labels;
  channel_labels_.clear();
  for (std::int64_t c = 0; c < channels_; ++c)
    channel_labels_.push_back(labels.size() > 1 && static_cast<std::int64_t>(labels[1].size()) == channels_
                                  ? labels[1][static_cast<std::size_t>(c)]
                                  : fmt::format("ch {}", c));
  const std::size_t cells = x_centres_.size() * y_centres_.size();
  sum_.assign(static_cast<std::size_t>(channels_) * cells, 0.0);
  count_.assign(sum_.size(), 0);
  significance_ = grid_ && ctx.provides(kSignificance);
  if (significance_) ctx.require(kSignificance, "png");
  hits_.assign(significance_ ? sum_.size() : 0, 0);
  needed_ = epochs_needed(epochs_, alpha_);
  surrogates_ = attrs.value("surrogate_shifts", json::array()).size();
  what_ = tensor_ == "pac_z" ? "PAC z-score against surrogates" : "Tort modulation index";
}

void PngSink::consume(const Batch& batch) {
  const auto values = batch.at(tensor_).values<float>();
  const std::size_t cells = x_centres_.size() * y_centres_.size();
  for (std::int64_t i = 0; i < batch.series_count; ++i) {
    const auto channel = static_cast<std::size_t>((batch.first_series + i) % channels_);
    for (std::size_t k = 0; k < cells; ++k) {
      const float v = values[static_cast<std::size_t>(i) * cells + k];
      if (!std::isfinite(v)) continue;  // z is NaN where the surrogates had no spread
      sum_[channel * cells + k] += v;
      ++count_[channel * cells + k];
    }
  }
  if (!significance_) return;
  const auto p = batch.at(kSignificance).values<float>();
  for (std::int64_t i = 0; i < batch.series_count; ++i) {
    const auto channel = static_cast<std::size_t>((batch.first_series + i) % channels_);
    for (std::size_t k = 0; k < cells; ++k)
      hits_[channel * cells + k] += double{p[static_cast<std::size_t>(i) * cells + k]} < alpha_ ? 1 : 0;
  }
}

std::vector<bool> PngSink::significant_cells(std::int64_t channel) const {
  if (!significance_) return {};
  const std::size_t cells = x_centres_.size() * y_centres_.size();
  std::vector<bool> out(cells);
  for (std::size_t k = 0; k < cells; ++k)
    out[k] = hits_[static_cast<std::size_t>(channel) * cells + k] >= needed_;
  return out;
}

void PngSink::finish(const json& /*report*/) {
  const std::size_t cells = x_centres_.size() * y_centres_.size();
  plot::Heatmap map;
  for (std::size_t k = 0; k < cells; ++k) {
    double sum = 0;
    std::int64_t count = 0;
    for (std::size_t c = 0; c < static_cast<std::size_t>(channels_); ++c) {
      sum += sum_[c * cells + k];
      count += count_[c * cells + k];
    }
    map.values.push_back(count ? sum / static_cast<double>(count) : kNan);
  }
  map.x_centres = x_centres_;
  map.y_centres = y_centres_;
  map.title = fmt::format("{}, mean over {} epochs x {} channels", what_, epochs_, channels_);
  map.x_label = "phase frequency (Hz)";
  map.y_label = "amplitude frequency (Hz)";
  map.colorbar_label = tensor_ == "pac_z" ? "z-score" : "MI";
  create_parent_directories(path_);
  plot::write_png(plot::render_heatmap(map), path_);
  if (!grid_) return;

  plot::HeatmapGrid grid;
  for (std::int64_t c = 0; c < channels_; ++c) {
    plot::HeatmapGrid::Panel panel{channel_labels_[static_cast<std::size_t>(c)], {}, significant_cells(c)};
    for (std::size_t k = 0; k < cells; ++k) {
      const auto at = static_cast<std::size_t>(c) * cells + k;
      panel.values.push_back(count_[at] ? sum_[at] / static_cast<double>(count_[at]) : kNan);
    }
    grid.panels.push_back(std::move(panel));
  }
  grid.x_centres = x_centres_;
  grid.y_centres = y_centres_;
  grid.title = fmt::format("{} per channel, mean over {} epochs", what_, epochs_);
  grid.subtitle = !significance_ ? "no surrogates ran: no significance outlines"
                  : epochs_ == 1
                      ? fmt::format("outlined: family-wise p (max over cells, {} surrogates) < {:g}", surrogates_, alpha_)
                      : fmt::format("outlined: family-wise p (max over cells, {} surrogates) < {:g} in at least {} of "
                                    "{} epochs (binomial test at {:g})",
                                    surrogates_, alpha_, needed_, epochs_, alpha_);
  grid.x_label = map.x_label;
  grid.y_label = map.y_label;
  grid.colorbar_label = map.colorbar_label;
  plot::write_png(plot::render_grid(grid), grid_path(path_));
}

}  // namespace pacflow::stages
