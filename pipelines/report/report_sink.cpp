#include "pipelines/report/report_sink.hpp"

#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "engine/io/output_set.hpp"
#include "engine/io/run_files.hpp"
#include "pipelines/report/report_html.hpp"
#include "stages/common/tensor_names.hpp"

namespace pacflow::report {

ReportSink::ReportSink() = default;

void ReportSink::declare(ParamBinder<ReportSink>& p) {
  p.add(&ReportSink::path_, "path", "out/pac/report.html", "HTML file to write").as(ParamType::OutputFile);
  p.add(&ReportSink::alpha_, "alpha", 0.05, "significance level of the figures' outlines (as the png sink's alpha)")
      .greater_than(0)
      .less_than(1);
}

ElementInfo ReportSink::info() {
  return element_info<ReportSink>("report",
                                  "one self-contained HTML report: figures, validity diagnostics per cell, methods "
                                  "paragraph, warnings, every resolved parameter, provenance and files");
}

void ReportSink::configured() {
  // Its figures as the png sink draws them, into memory (the path only names them in captions).
  figures_ = make_element<stages::PngSink>(
      {{"path", (path_.parent_path() / "comodulogram.svg").string()}, {"alpha", alpha_}, {"grid", true}});
}

void ReportSink::plan(const PlanContext& ctx) {
  // Figures where there is something to draw (a comodulogram or ERPAC); the page says when there is not.
  drawn_ = ctx.provides(stages::tensors::kPac) || ctx.provides(stages::tensors::kPacZ) ||
           ctx.provides(stages::tensors::kErpac);
  if (drawn_) figures_->plan(ctx);
  waveforms_ = {};
  if (!ctx.provides(stages::tensors::kPhaseWaveform)) return;
  const TensorDecl& decl = ctx.require(stages::tensors::kPhaseWaveform, "report");
  const StreamInfo& stream = ctx.stream();
  const Shape& lead = stream.leading_dims;
  channels_ = lead.size() > 1 ? lead[1] : 1;
  inner_ = 1;
  for (std::size_t k = 2; k < lead.size(); ++k) inner_ *= lead[k];
  channel_labels_.clear();
  for (std::int64_t c = 0; c < channels_; ++c)
    channel_labels_.push_back(stream.labels.size() > 1 && static_cast<std::int64_t>(stream.labels[1].size()) > c
                                  ? stream.labels[1][static_cast<std::size_t>(c)]
                                  : fmt::format("ch {}", c));
  waveforms_ = WaveformShape(channels_, decl.per_series.at(0), decl.per_series.at(1));
}

std::string ReportSink::describe_output(const std::filesystem::path&) const {
  return "the run's report: figures, validity diagnostics, methods, parameters, provenance (HTML, self-contained)";
}

void ReportSink::consume(const Batch& batch) {
  if (drawn_) figures_->consume(batch);
  if (waveforms_.empty()) return;
  const auto rows = batch.at(stages::tensors::kPhaseWaveform).values<float>();
  const std::size_t per_series = rows.size() / static_cast<std::size_t>(batch.series_count);
  for (std::int64_t i = 0; i < batch.series_count; ++i)
    waveforms_.add(((batch.first_series + i) / inner_) % channels_,
                   rows.subspan(static_cast<std::size_t>(i) * per_series, per_series));
}

void ReportSink::consume_summary(const Batch& summary) {
  if (drawn_) figures_->consume_summary(summary);
}

// Drawing as the png sink (SVG encoding costs about what PNG encoding does), and the page itself.
double ReportSink::finish_seconds() const { return (drawn_ ? figures_->finish_seconds() : 0.0) + 0.01; }

void ReportSink::resume(const std::filesystem::path& dir, const json& state, std::int64_t series_done) {
  if (drawn_) figures_->resume(dir, state.is_null() ? state : state.at("figures"), series_done);
  if (waveforms_.empty() || state.is_null()) return;
  try {
    waveforms_.restore(state.at("waveforms"));
  } catch (const std::exception&) {
    throw InputError("--checkpoint: its report state does not fit this run; remove the checkpoint to start afresh");
  }
}

json ReportSink::checkpoint() {
  json state = {{"figures", drawn_ ? figures_->checkpoint() : json()}};
  if (!waveforms_.empty()) state["waveforms"] = waveforms_.state();
  return state;
}

void ReportSink::finish(const json& report, OutputSet& outputs) {
  std::vector<ReportFigure> figures;
  for (const stages::PngSink::Figure& f : drawn_ ? figures_->figures() : std::vector<stages::PngSink::Figure>{})
    figures.push_back({f.what, std::filesystem::path(f.file).replace_extension(".png").filename().string(),
                       f.drawing.encode(plot::FigureFormat::kSvg, path_.string())});
  json page = report;  // files named as the reader of this page finds them: beside it
  if (page.contains("files")) page["files"] = files_relative_to(page["files"], path_.parent_path());
  std::vector<PhaseBandShape> shapes;
  if (!waveforms_.empty())
    for (const BandShape& b : waveforms_.bands())
      shapes.push_back({b.judged, b.share, b.channel >= 0 ? channel_labels_[static_cast<std::size_t>(b.channel)] : "",
                        b.harmonics, b.non_sinusoidal()});
  outputs.add_content(path_, report_html(page, figures, shapes));
}

void add_report_elements(Registry& registry) { registry.add(ReportSink::info()); }

}  // namespace pacflow::report
