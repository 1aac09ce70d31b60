#pragma once
// Sink `report`: one self-contained HTML file a reviewer can read without the docs (report_html.hpp):
// the figures the png sink draws (drawn by a png sink of its own, kept in memory), the validity
// diagnostics of every cell, the methods paragraph, the warnings, every resolved parameter, the
// provenance and the files. `sink report path=out/pac/report.html`.
#include <filesystem>
#include <memory>

#include "engine/api/param_binding.hpp"
#include "pipelines/report/waveform_shape.hpp"
#include "stages/io/png/png_sink.hpp"

namespace pacflow::report {

class ReportSink final : public Sink {
 public:
  ReportSink();
  void configured();
  void plan(const PlanContext& ctx) override;
  std::vector<std::filesystem::path> output_files() const override { return {path_}; }
  std::string describe_output(const std::filesystem::path& file) const override;
  void consume(const Batch& batch) override;
  void consume_summary(const Batch& summary) override;
  void finish(const json& report, OutputSet& outputs) override;
  double finish_seconds() const override;
  // Its state is its figures' sums: a checkpoint holds them whole, as the png sink's.
  std::string why_not_checkpointable() const override { return ""; }
  void resume(const std::filesystem::path& dir, const json& state, std::int64_t series_done) override;
  json checkpoint() override;

  static ElementInfo info();
  static void declare(ParamBinder<ReportSink>& p);

 private:
  std::filesystem::path path_;
  double alpha_ = 0.05;
  std::unique_ptr<stages::PngSink> figures_;  // draws the figures; writes no file
  bool drawn_ = false;                        // the run has a comodulogram or ERPAC to draw
  // Stage waveform's phase_waveform, when it ran: the non-sinusoidality diagnostic.
  WaveformShape waveforms_;
  std::int64_t channels_ = 1, inner_ = 1;  // a series' channel: (series / inner) % channels
  std::vector<std::string> channel_labels_;
};

// The elements of the application layer (the report sink) added to `registry`.
void add_report_elements(Registry& registry);

}  // namespace pacflow::report
