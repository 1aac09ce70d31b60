#include "stages/io/png/png_sink.hpp"

#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>

#include "engine/errors.hpp"
#include "stages/io/png/comodulogram_plot.hpp"

namespace pacflow::stages {

ElementInfo PngSink::info() {
  ElementInfo info;
  info.kind = ElementKind::Sink;
  info.name = "png";
  info.summary = "comodulogram heat map (mean over epochs and channels) as a PNG";
  info.params = {{"path", ParamType::OutputFile, "out/pac/comodulogram.png", "", "image file to write"}};
  info.make_sink = [](const Params& p) { return std::make_unique<PngSink>(p); };
  return info;
}

PngSink::PngSink(const Params& params) : path_(params.string("path")) {}

void PngSink::plan(const PlanContext& ctx) {
  tensor_ = ctx.provides("pac_z") ? "pac_z" : "pac";
  const TensorDecl& decl = ctx.require(tensor_, "png");
  const json& attrs = ctx.attributes();
  if (!attrs.contains("pha_centres_hz") || !attrs.contains("amp_centres_hz") || decl.per_series.size() != 2)
    throw InputError("the png sink plots a [phase band][amplitude band] result; it needs bandpass and mi before it");
  x_centres_ = attrs["pha_centres_hz"].get<std::vector<double>>();
  y_centres_ = attrs["amp_centres_hz"].get<std::vector<double>>();
  colorbar_ = attrs.value("mi_measure", std::string("MI"));
  sum_.assign(x_centres_.size() * y_centres_.size(), 0.0);
  count_.assign(sum_.size(), 0);
  // Mean over every leading dim: the stream's, or the result's own (e.g. channel pairs).
  const bool own = !decl.rows.leading.empty();
  const Shape& lead = own ? decl.rows.leading : ctx.stream().leading_dims;
  const auto& names = own ? decl.rows.leading_names : ctx.stream().leading_names;
  std::vector<std::string> over;
  for (std::size_t i = 0; i < lead.size(); ++i) over.push_back(fmt::format("{} {}", lead[i], names.at(i)));
  const std::string measure = attrs.value("mi_method_name", std::string("modulation index"));
  title_ = fmt::format("{}, mean over {}", tensor_ == "pac_z" ? "PAC z-score against surrogates" : measure,
                       fmt::join(over, " x "));
}

void PngSink::consume(const Batch& batch) {
  const auto values = batch.at(tensor_).values<float>();
  const std::size_t cells = sum_.size();
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) continue;  // z is NaN where the surrogates had no spread
    sum_[i % cells] += values[i];
    ++count_[i % cells];
  }
}

void PngSink::finish(const json& /*report*/) {
  plot::Heatmap map;
  for (std::size_t i = 0; i < sum_.size(); ++i)
    map.values.push_back(count_[i] ? sum_[i] / static_cast<double>(count_[i]) : std::numeric_limits<double>::quiet_NaN());
  map.x_centres = x_centres_;
  map.y_centres = y_centres_;
  map.title = title_;
  map.x_label = "phase frequency (Hz)";
  map.y_label = "amplitude frequency (Hz)";
  map.colorbar_label = tensor_ == "pac_z" ? "z-score" : colorbar_;
  const std::filesystem::path path(path_);
  if (path.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) throw InputError(fmt::format("{}: cannot create directory: {}", path.parent_path().string(), ec.message()));
  }
  plot::write_png(plot::render_heatmap(map), path);
}

}  // namespace pacflow::stages
