#pragma once
// Loops of the trial-level test over permutations or cells, in parallel on the current task arena's
// threads. Each chunk writes only its own items, and sums stay in their serial order inside an
// item, so the results are the same bits on any number of threads.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <algorithm>
#include <cstdint>
#include <stop_token>

#include "engine/api/errors.hpp"

namespace pacflow::surrogates {

// Throws RunCancelled when `stop` was requested: called every so often in the long loops.
inline void check(const std::stop_token& stop) {
  if (stop.stop_requested()) throw RunCancelled(-1);
}

// Runs body(begin, end) over [0, n) in chunks of about a million operations, `work_per_item` each,
// so a few permutations of a large family and many of a small one are split alike. Throws
// RunCancelled soon after `stop` is requested.
template <class Body>
void in_parallel(std::int64_t n, std::int64_t work_per_item, const std::stop_token& stop, Body&& body) {
  const std::int64_t grain = std::max<std::int64_t>(1, (1 << 20) / std::max<std::int64_t>(1, work_per_item));
  // Isolated twice. A thread waiting here takes no other task of the run's graph (a batch that
  // waits for the delivery this summary is part of). And the loop's own task group is not bound to
  // the caller's: when the run's graph is cancelled (a stop, another stage's error), a bound loop
  // would silently skip its remaining chunks, and a summary fed a batch received from another rank
  // after that would record sums it never finished. Here only `stop` ends it, by an exception.
  oneapi::tbb::task_group_context own(oneapi::tbb::task_group_context::isolated);
  oneapi::tbb::this_task_arena::isolate([&] {
    oneapi::tbb::parallel_for(
        oneapi::tbb::blocked_range<std::int64_t>(0, n, grain),
        [&](const oneapi::tbb::blocked_range<std::int64_t>& r) {
          check(stop);
          body(r.begin(), r.end());
        },
        own);
  });
}

}  // namespace pacflow::surrogates
