#pragma once
// What a run tells its observers, in the manner of Taskflow's ObserverInterface: the flow graph's
// nodes only report; each observer keeps what it needs. The run's own are the timings of
// result.json, the trace, the progress line and the checkpoint (engine/run/observers.hpp); a caller
// adds its own with RunOptions::observers.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/api/batch.hpp"
#include "engine/api/registry.hpp"

namespace pacflow {

// One element's work on one batch, as the run's timings count it.
struct ElementWork {
  ElementKind kind;
  std::size_t position;  // among the elements of its kind (the source is 0)
  std::int64_t batch;    // -1: a run summary's finish, after the last batch
  std::chrono::steady_clock::time_point start, end;
  bool summary = false;  // the stage's run summary (its trial-level test) worked, not the stage
};

// One span of the run's timeline.
struct Span {
  static constexpr int kThisThread = -1;
  const char* kind;  // "source", "stage", "summary", "sink", "copy"
  std::string_view label;
  std::string_view device;
  std::int64_t batch, series;
  int lane;  // kThisThread: the reporting thread's row; else a device engine's (engine/api/trace.hpp)
  std::chrono::steady_clock::time_point start, end;
};

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // From any worker, concurrently.
  virtual void on_work(const ElementWork&) {}
  virtual void on_span(const Span&) {}
  // Kernel time a device measured (between events) for one batch of a stage.
  virtual void on_device_time(std::size_t /*stage*/, double /*seconds*/) {}
  // Serially, in index order, once the summaries and sinks have the batch and before its token goes
  // back. An exception fails the run.
  virtual void on_delivered(const Batch&) {}
  // Whether on_span keeps anything (nodes skip formatting labels no one reads); asked once, when the
  // run takes the observer.
  virtual bool wants_spans() const { return false; }
};

}  // namespace pacflow
