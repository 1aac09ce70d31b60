#include "engine/run/observers.hpp"

#include <chrono>

namespace pacflow::detail {

namespace {

json timing_row(const char* kind, const std::string& name, const StageTiming& t) {
  const double total = static_cast<double>(t.nanoseconds.load()) * 1e-9;
  const auto n = t.batches.load();
  json row{{"kind", kind}, {"name", name}, {"batches", n}, {"busy_s", total},
           {"mean_ms_per_batch", n ? 1e3 * total / static_cast<double>(n) : 0.0}};
  if (const auto gpu = t.gpu_nanoseconds.load()) row["gpu_kernel_s"] = static_cast<double>(gpu) * 1e-9;
  return row;
}

}  // namespace

Timings::Timings(const BuiltPipeline& built)
    : built_(built), timings_(std::make_unique<StageTiming[]>(1 + 2 * built.stages.size() + built.sinks.size())) {}

StageTiming& Timings::of(ElementKind kind, std::size_t position) {
  switch (kind) {
    case ElementKind::Source: return timings_[0];
    case ElementKind::Stage: return timings_[1 + position];
    case ElementKind::Sink: return timings_[1 + built_.stages.size() + position];
  }
  return timings_[0];
}

void Timings::on_work(const ElementWork& w) {
  StageTiming& t = w.summary ? timings_[1 + built_.stages.size() + built_.sinks.size() + w.position]
                             : of(w.kind, w.position);
  const auto nanoseconds = std::chrono::duration_cast<std::chrono::nanoseconds>(w.end - w.start).count();
  t.nanoseconds += nanoseconds;
  if (w.batch < 0)
    t.finish_nanoseconds += nanoseconds;
  else
    ++t.batches;
}

void Timings::on_device_time(std::size_t stage, double seconds) {
  of(ElementKind::Stage, stage).gpu_nanoseconds += static_cast<std::int64_t>(seconds * 1e9);
}

json Timings::report() const {
  json rows = json::array();
  rows.push_back(timing_row("source", built_.source_name, timings_[0]));
  for (std::size_t i = 0; i < built_.stages.size(); ++i)
    rows.push_back(timing_row("stage", built_.stages[i].name, timings_[1 + i]));
  for (std::size_t i = 0; i < built_.sinks.size(); ++i)
    rows.push_back(timing_row("sink", built_.sinks[i].name, timings_[1 + built_.stages.size() + i]));
  for (std::size_t i = 0; i < built_.stages.size(); ++i) {
    const StageTiming& t = timings_[1 + built_.stages.size() + built_.sinks.size() + i];
    if (t.nanoseconds.load() == 0 && t.batches.load() == 0) continue;  // the stage has no run summary
    json row = timing_row("summary", built_.stages[i].name, t);
    const double finish = static_cast<double>(t.finish_nanoseconds.load()) * 1e-9;
    const auto n = t.batches.load();  // the mean per batch counts the additions, not the finish
    row["mean_ms_per_batch"] = n ? 1e3 * (row["busy_s"].get<double>() - finish) / static_cast<double>(n) : 0.0;
    row["finish_s"] = finish;
    // On sim devices the additions are booked with the stage's batches and the finish is the model's.
    if (built_.stages[i].simulated()) row["modelled"] = true;
    rows.push_back(std::move(row));
  }
  return rows;
}

void TraceSpans::on_span(const Span& s) {
  const std::string label(s.label), device(s.device);
  if (s.lane == Span::kThisThread)
    trace_.record(s.kind, label, device, s.batch, s.series, s.start, s.end);
  else
    trace_.record_lane(s.kind, label, device, s.batch, s.series, s.lane, s.start, s.end);
}

void ProgressReports::on_delivered(const Batch&) {
  ++delivered_;
  report_({delivered_, batches_, std::chrono::duration<double>(Clock::now() - start_).count()});
}

}  // namespace pacflow::detail
