// Cutting a built pipeline at its rings, and the batch sizes and bounds of each segment.
#include <algorithm>
#include <map>
#include <fmt/format.h>

#include "engine/plan/built_pipeline.hpp"

namespace pacflow::detail {

namespace {

// Batches to keep alive so every thread is busy and every modelled device's three engines (copy
// in, compute, copy out) have work: two per thread, three per sim replica. A segment all on GPUs
// needs only three per GPU (one copying in, one computing, one copying out): its batches are big.
std::size_t busy_bound(const BuiltPipeline& built, std::size_t first, std::size_t end, int threads) {
  const bool all_gpu = first < end && std::all_of(built.stages.begin() + static_cast<std::ptrdiff_t>(first),
                                                  built.stages.begin() + static_cast<std::ptrdiff_t>(end),
                                                  [](const BuiltStage& s) { return s.in_device_memory(); });
  std::size_t bound = all_gpu ? 4 : std::max(2, 2 * threads);
  for (std::size_t s = first; s < end; ++s) {
    const auto& stage = built.stages[s];
    const std::size_t replicas = stage.devices.size();
    bound = std::max(bound, (stage.simulated() || stage.in_device_memory() ? 3 : 2) * replicas);
  }
  return bound;
}

// The GPU side of a segment: its GPU stages, their GPUs, and the smallest budget among those.
struct GpuNeeds {
  std::vector<const BuiltStage*> stages;
  std::size_t devices = 0;
  std::size_t budget = 0;
  int tightest = -1;  // the device with that budget

  // The most GPU memory a batch of `series` holds during the segment: every tensor alive at a GPU
  // stage plus that stage's workspace.
  double bytes_per_batch(std::int64_t series) const {
    double most = 0;
    for (const BuiltStage* s : stages)
      most = std::max(most, s->alive_bytes_per_series * static_cast<double>(series) +
                                (s->device_kernel ? s->device_kernel->workspace_bytes(series) : 0.0));
    return most;
  }
};

GpuNeeds gpu_needs(const BuiltPipeline& built, const Segment& seg, const std::map<int, std::size_t>& budgets) {
  GpuNeeds needs;
  std::vector<int> seen;
  for (std::size_t s = seg.first_stage; s < seg.end_stage; ++s) {
    const auto& stage = built.stages[s];
    if (!stage.in_device_memory()) continue;
    needs.stages.push_back(&stage);
    for (const auto& d : stage.devices) {
      if (std::find(seen.begin(), seen.end(), d.index) != seen.end()) continue;
      seen.push_back(d.index);
      const std::size_t b = budgets.at(d.index);
      if (needs.tightest < 0 || b < needs.budget) {
        needs.budget = b;
        needs.tightest = d.index;
      }
    }
  }
  needs.devices = seen.size();
  return needs;
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
  // Stages that combine the series of a group (or a block) see whole groups: every batch size is a
  // multiple, so every batch starts at one. No batch holds more than the input.
  const std::int64_t multiple = built.batch_multiple;
  const auto whole_groups = [multiple, series](std::int64_t b) {
    return std::min((std::min(b, series) + multiple - 1) / multiple * multiple, series);
  };
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
  const std::map<int, std::size_t> budgets = gpu_budgets(built);
  for (std::size_t k = 0; k < segments.size(); ++k) {
    Segment& seg = segments[k];
    const GpuNeeds gpu = gpu_needs(built, seg, budgets);
    const bool batch_given = k == 0 ? batch_option > 0 : (built.stages[seg.first_stage].input.batch > 0 || batch_option > 0);
    if (gpu.devices > 0 && !batch_given) {
      // GPUs want big batches: about four per device, at most 256 series each (on an H100, W2 ran
      // 10% faster in batches of 256 than of 512: smaller batches overlap the host's work more).
      seg.batch_series =
          whole_groups(std::clamp<std::int64_t>(series / static_cast<std::int64_t>(4 * gpu.devices), 1, 256));
    }
    seg.batch_count = seg.batches(series);
    // Never more batches alive (in flight, or ring slots) than the segment has batches.
    const std::size_t given = seg.ring ? static_cast<std::size_t>(built.stages[seg.first_stage].input.ring)
                                       : static_cast<std::size_t>(in_flight_option);
    seg.slots = std::min(given ? given : busy_bound(built, seg.first_stage, seg.end_stage, threads),
                         static_cast<std::size_t>(seg.batch_count));
    if (gpu.devices == 0) continue;
    // Every batch alive in the segment may sit on one GPU at once: they must fit in its budget.
    const auto slots = static_cast<double>(seg.slots);
    // Batch sizes stay whole multiples of the groups some stage needs: count in multiples.
    const auto fits = [&](std::int64_t groups) {
      return slots * gpu.bytes_per_batch(groups * multiple) <= static_cast<double>(gpu.budget);
    };
    if (!fits(1))
      throw InputError(fmt::format("the GPU stages need {:.1f} MiB for a batch of {} series and up to {} batches "
                                   "may be in flight, but the memory budget on cuda:{} is {:.1f} MiB; raise vram= "
                                   "(or --vram), or lower --in-flight / ring=",
                                   gpu.bytes_per_batch(multiple) / 0x1p20, multiple, seg.slots, gpu.tightest,
                                   static_cast<double>(gpu.budget) / 0x1p20));
    if (!fits(seg.batch_series / multiple)) {
      std::int64_t lo = 1, hi = seg.batch_series / multiple;  // the most groups that fit: fits(lo), !fits(hi)
      while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
      }
      lo *= multiple;
      if (batch_given)
        throw InputError(fmt::format("batches of {} series need {:.1f} MiB each on a GPU; with up to {} in flight "
                                     "the memory budget on cuda:{} ({:.1f} MiB) allows at most {} series per batch",
                                     seg.batch_series, gpu.bytes_per_batch(seg.batch_series) / 0x1p20, seg.slots,
                                     gpu.tightest, static_cast<double>(gpu.budget) / 0x1p20, lo));
      seg.batch_series = lo;
      seg.batch_count = seg.batches(series);
      seg.slots = std::min<std::size_t>(seg.slots, static_cast<std::size_t>(seg.batch_count));
    }
    seg.gpu_bytes_per_batch = gpu.bytes_per_batch(seg.batch_series);
  }
  return segments;
}

void uniform_batches(std::vector<Segment>& segments, std::int64_t series) {
  std::int64_t batch = segments.front().batch_series;
  for (const Segment& seg : segments) batch = std::min(batch, seg.batch_series);
  for (Segment& seg : segments) {
    seg.batch_series = batch;
    seg.batch_count = seg.batches(series);
    seg.slots = std::min(seg.slots, static_cast<std::size_t>(seg.batch_count));
  }
}

}  // namespace pacflow::detail
