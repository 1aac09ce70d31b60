#include "engine/api/trace.hpp"

#include <algorithm>
#include <oneapi/tbb/task_arena.h>
#include <set>

#include "engine/api/json_text.hpp"

namespace pacflow {

namespace {
// Lanes 1000 + 3k, +1, +2: modelled device k's copy-in, compute and copy-out engines.
std::string lane_name(int lane) {
  const int device = (lane - 1000) / 3;
  const char* engines[3] = {"copy in", "compute", "copy out"};
  return "sim:" + std::to_string(device) + " " + engines[(lane - 1000) % 3];
}
}  // namespace

void TraceRecorder::record(const char* kind, const std::string& element, const std::string& device,
                           std::int64_t batch, std::int64_t series, Clock::time_point start, Clock::time_point end) {
  // Worker slots of the running arena, 0-based; a thread outside any arena shows as -1.
  const int thread = oneapi::tbb::this_task_arena::current_thread_index();
  spans_.push_back({kind, element, device, batch, series, thread, start, end});
}

void TraceRecorder::record_lane(const char* kind, const std::string& element, const std::string& device,
                                std::int64_t batch, std::int64_t series, int lane, Clock::time_point start,
                                Clock::time_point end) {
  spans_.push_back({kind, element, device, batch, series, lane, start, end});
}

json TraceRecorder::to_json() const {
  const auto micros = [this](Clock::time_point t) {
    return std::chrono::duration<double, std::micro>(t - origin_).count();
  };
  json events = json::array();
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", "pacflow"}}}});
  std::set<int> threads;
  for (const Span& s : spans_) threads.insert(s.thread);
  for (int t : threads)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", t},
                      {"args", {{"name", t < 0      ? std::string("caller")
                                         : t >= 1000 ? lane_name(t)
                                                     : "worker " + std::to_string(t)}}}});
  std::vector<const Span*> ordered;
  for (const Span& s : spans_) ordered.push_back(&s);
  std::sort(ordered.begin(), ordered.end(), [](const Span* a, const Span* b) { return a->start < b->start; });
  for (const Span* s : ordered)
    events.push_back({{"name", s->element},
                      {"cat", s->kind},
                      {"ph", "X"},
                      {"ts", micros(s->start)},
                      {"dur", micros(s->end) - micros(s->start)},
                      {"pid", 1},
                      {"tid", s->thread},
                      {"args", {{"batch", s->batch}, {"series", s->series}, {"device", s->device}}}});
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

}  // namespace pacflow
