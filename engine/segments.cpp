// Cutting a built pipeline at its rings, and the batch sizes and bounds of each segment.
#include <algorithm>
#include <fmt/format.h>

#include "engine/built_pipeline.hpp"

namespace pacflow::detail {

namespace {

// Batches to keep alive so every thread is busy and every modelled device's three engines (copy
// in, compute, copy out) have work: two per thread, three per sim replica.
std::size_t busy_bound(const BuiltPipeline& built, std::size_t first, std::size_t end, int threads) {
  std::size_t bound = std::max(2, 2 * threads);
  for (std::size_t s = first; s < end; ++s) {
    const auto& stage = built.stages[s];
    const std::size_t replicas = stage.devices.size();
    bound = std::max(bound, (stage.simulated() ? 3 : 2) * replicas);
  }
  return bound;
}

}  // namespace

std::vector<Segment> plan_segments(const BuiltPipeline& built, std::int64_t batch_option, int in_flight_option,
                                   int threads) {
  if (batch_option < 0) throw InputError(fmt::format("batch size must be >= 1, got {}", batch_option));
  if (in_flight_option < 0) throw InputError(fmt::format("in-flight limit must be >= 1, got {}", in_flight_option));
  const std::int64_t series = built.stream.series_count();
  std::int64_t batch = batch_option;
  if (batch == 0) {
    // Enough batches to keep every thread busy, few enough to amortise overhead, each within 256 MiB.
    double bytes_per_series = 0;
    for (const auto& t : built.tensors) bytes_per_series += t["bytes_per_series"].get<double>();
    const auto by_memory = static_cast<std::int64_t>(0x1p28 / std::max(bytes_per_series, 1.0));
    batch = std::clamp<std::int64_t>(std::min(series / (4 * threads), by_memory), 1, 16);
  }
  // Stages that combine the series of a group see whole groups: every batch size is a multiple.
  const std::int64_t multiple = built.batch_multiple;
  const auto whole_groups = [multiple](std::int64_t b) { return (b + multiple - 1) / multiple * multiple; };
  batch = whole_groups(batch);
  // The first segment starts at the source (it may hold no stage); each ring starts another.
  std::vector<Segment> segments{Segment{0, 0, batch, 0, 0, false, Overflow::Block}};
  for (std::size_t s = 0; s < built.stages.size(); ++s) {
    if (built.stages[s].ring_before) {
      const EdgeSettings& edge = built.stages[s].input;
      segments.push_back(Segment{s, s, edge.batch ? whole_groups(edge.batch) : segments.back().batch_series, 0, 0,
                                 true, edge.overflow});
    }
    segments.back().end_stage = s + 1;
  }
  for (auto& seg : segments) {
    seg.batch_count = (series + seg.batch_series - 1) / seg.batch_series;
    if (!seg.ring) {
      seg.slots = in_flight_option ? static_cast<std::size_t>(in_flight_option)
                                   : busy_bound(built, seg.first_stage, seg.end_stage, threads);
    } else {
      const EdgeSettings& edge = built.stages[seg.first_stage].input;
      seg.slots = edge.ring ? static_cast<std::size_t>(edge.ring)
                            : std::min<std::size_t>(busy_bound(built, seg.first_stage, seg.end_stage, threads),
                                                    static_cast<std::size_t>(seg.batch_count));
    }
  }
  return segments;
}

}  // namespace pacflow::detail
