#pragma once
// Internal to the executor: the run's standard observers (engine/run/element_reporter.hpp).
//  - Timings: each element's busy time and batch count, and its GPU kernel time (result.json's
//    run.stages).
//  - TraceSpans: every span into a TraceRecorder (the Chrome trace of --trace).
//  - ProgressReports: RunOptions::on_progress after each delivered batch.
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "engine/api/json_text.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/api/trace.hpp"
#include "engine/plan/built_pipeline.hpp"
#include "engine/run/element_reporter.hpp"

namespace pacflow::detail {

struct StageTiming {
  std::atomic<std::int64_t> nanoseconds{0};
  std::atomic<std::int64_t> gpu_nanoseconds{0};  // kernel time on GPUs (between events)
  std::atomic<std::int64_t> batches{0};
  std::atomic<std::int64_t> finish_nanoseconds{0};  // a run summary's finish (within nanoseconds)
};

class Timings final : public RunObserver {
 public:
  explicit Timings(const BuiltPipeline& built);
  void on_work(const ElementWork& w) override;
  void on_device_time(std::size_t stage, double seconds) override;
  // One row per element, source first: kind, name, batches, busy_s, mean_ms_per_batch, gpu_kernel_s;
  // then one per stage whose run summary worked (kind "summary": its batches' additions and its
  // finish, finish_s of busy_s).
  json report() const;

 private:
  StageTiming& of(ElementKind kind, std::size_t position);

  const BuiltPipeline& built_;
  std::unique_ptr<StageTiming[]> timings_;  // source, stages, sinks, stages' summaries (atomics: never moved)
};

class TraceSpans final : public RunObserver {
 public:
  explicit TraceSpans(TraceRecorder& trace) : trace_(trace) {}
  void on_span(const Span& s) override;
  bool wants_spans() const override { return true; }

 private:
  TraceRecorder& trace_;
};

class ProgressReports final : public RunObserver {
 public:
  ProgressReports(std::function<void(const Progress&)> report, std::int64_t batches)
      : report_(std::move(report)), batches_(batches) {}
  void on_delivered(const Batch&) override;

 private:
  std::function<void(const Progress&)> report_;
  std::int64_t batches_;
  std::int64_t delivered_ = 0;
  Clock::time_point start_ = Clock::now();
};

}  // namespace pacflow::detail
