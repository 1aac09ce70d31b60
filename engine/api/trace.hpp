#pragma once
// A Chrome trace of a run (chrome://tracing, https://ui.perfetto.dev): one span per source read,
// stage process and sink consume, naming the element, batch, device and worker thread, so where
// the time goes, and how batches overlap, can be seen rather than guessed.
#include <chrono>
#include <cstdint>
#include <oneapi/tbb/concurrent_vector.h>
#include <string>

#include "engine/api/params.hpp"

namespace pacflow {

class TraceRecorder {
 public:
  using Clock = std::chrono::steady_clock;

  TraceRecorder() : origin_(Clock::now()) {}

  // Thread-safe; called by the executor's workers.
  void record(const char* kind, const std::string& element, const std::string& device, std::int64_t batch,
              std::int64_t series, Clock::time_point start, Clock::time_point end);

  // A span on an explicit lane (e.g. a modelled device's copy or compute engine) rather than the
  // calling thread's; lanes show as rows named "lane N" in the viewer.
  void record_lane(const char* kind, const std::string& element, const std::string& device, std::int64_t batch,
                   std::int64_t series, int lane, Clock::time_point start, Clock::time_point end);

  std::size_t size() const { return spans_.size(); }
  // The Chrome trace event format: {"traceEvents": [...], "displayTimeUnit": "ms"}.
  json to_json() const;

 private:
  struct Span {
    const char* kind;
    std::string element;
    std::string device;
    std::int64_t batch;
    std::int64_t series;
    int thread;
    Clock::time_point start;
    Clock::time_point end;
  };
  Clock::time_point origin_;
  oneapi::tbb::concurrent_vector<Span> spans_;
};

}  // namespace pacflow
