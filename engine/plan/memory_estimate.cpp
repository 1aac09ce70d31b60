#include "engine/plan/memory_estimate.hpp"

#include "engine/api/errors.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>
#include <unistd.h>

namespace pacflow::detail {

std::size_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
}

void refuse_above(const MemoryBudget& limit, const MemoryEstimate& estimate) {
  const auto physical = static_cast<double>(physical_memory_bytes());
  const double bytes = limit.fraction > 0 ? limit.fraction * physical : limit.given() ? limit.bytes : physical;
  if (estimate.total() <= bytes || bytes <= 0) return;
  const std::string what = limit.fraction > 0 ? fmt::format("the memory limit of {} ({:g}% of {})", bytes_text(bytes),
                                                            100 * limit.fraction, bytes_text(physical))
                           : limit.given()    ? fmt::format("the memory limit of {}", bytes_text(bytes))
                                              : fmt::format("this machine's memory ({})", bytes_text(bytes));
  throw InputError(fmt::format("the run needs an estimated {}, more than {}; lower --batch or --in-flight (or ring= / "
                               "batch= on a stage){}",
                               estimate.text(), what, limit.given() ? ", or raise the limit" : ""));
}

namespace {

// The per-series and per-channel lists the planned stream keeps for the whole run (series left out,
// names along each dimension, each epoch's condition): they grow with the input's shape, not with
// the batches.
double stream_list_bytes(const StreamInfo& stream) {
  double bytes = static_cast<double>((stream.excluded_series.capacity() + stream.epoch_conditions.capacity()) *
                                     sizeof(std::int64_t));
  for (const auto& names : stream.labels)
    for (const auto& name : names) bytes += static_cast<double>(sizeof(std::string) + name.capacity());
  return bytes;
}

}  // namespace

MemoryEstimate estimate_host_memory(const BuiltPipeline& built, const std::vector<Segment>& segments, int threads) {
  MemoryEstimate estimate;
  const double source_bytes = static_cast<double>(built.stream.series_length) * sizeof(float);
  for (std::size_t k = 0; k < segments.size(); ++k) {
    const Segment& seg = segments[k];
    double peak = k == 0 ? source_bytes : 0;  // a segment without stages holds only what the source wrote
    std::vector<std::string> names;
    for (std::size_t s = seg.first_stage; s < seg.end_stage; ++s) {
      peak = std::max(peak, built.stages[s].alive_bytes_per_series);
      names.push_back(built.stages[s].name);
    }
    const auto series = static_cast<double>(seg.batch_series);
    const auto alive = static_cast<double>(seg.slots);
    estimate.terms.push_back(
        {fmt::format("{} [{}]: up to {} batches × {} series × {} per series", k == 0 ? "batches in flight" : "batches",
                     fmt::join(names, ", "), seg.slots, seg.batch_series, bytes_text(peak)),
         alive * series * peak});
    if (k == 0) {
      estimate.terms.push_back({fmt::format("the batch the source has ready: {} series × {}", seg.batch_series,
                                            bytes_text(source_bytes)),
                                series * source_bytes});
    } else {
      std::vector<SlotTensor> layout = built.stages[seg.first_stage].crossing;
      const auto slot = static_cast<double>(lay_out_slot(layout, seg.batch_series));
      estimate.terms.push_back({fmt::format("ring into {}: {} slots × {}", built.stages[seg.first_stage].name,
                                            seg.slots, bytes_text(slot)),
                                alive * slot});
    }
  }
  if (const double bytes = built.source->host_workspace_bytes(segments.front().batch_series); bytes > 0)
    estimate.terms.push_back({fmt::format("{} source read buffers", built.source_name), bytes});
  // Named from 1 MiB on (a million series left out, a million channel names); below, noise.
  if (const double bytes = stream_list_bytes(built.stream); bytes >= 0x1p20)
    estimate.terms.push_back({"the input's per-series lists (series left out, channel names)", bytes});
  for (const auto& stage : built.stages) {
    // A stage on sim devices does no arithmetic: no working memory, and no run summary (its sums).
    if (stage.simulated()) continue;
    // A stage on the whole machine may run on every thread; on CPU devices, one per replica.
    const bool whole_machine = stage.whole_machine();
    const int runners = whole_machine ? threads : static_cast<int>(stage.devices.size());
    const double bytes = stage.stage->host_workspace_bytes(runners);
    if (bytes <= 0) continue;
    estimate.terms.push_back({fmt::format("{} working memory on {} thread{}", stage.name, runners, runners == 1 ? "" : "s"),
                              bytes});
  }
  return estimate;
}

}  // namespace pacflow::detail
