#include "engine/plan/run_time_estimate.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>

#include "engine/plan/built_pipeline.hpp"
#include "engine/plan/memory_estimate.hpp"

namespace pacflow {

ComputeRates measured_rates(int simd_width_bytes) {
  ComputeRates rates;
  // kernel_bench, BM_MiSurrogateLoop/W: useful adds per second per thread at each width.
  const double measured_at_64 = 20.6e9;
  const double here = simd_width_bytes >= 64 ? 20.6e9 : simd_width_bytes >= 32 ? 13.7e9 : 8.3e9;
  rates.cpu_flops_per_thread_s *= here / measured_at_64;
  return rates;
}

namespace detail {

RunTimeEstimate estimate_run_time(const BuiltPipeline& built, int threads, const ComputeRates& rates) {
  RunTimeEstimate estimate;
  estimate.threads = std::max(1, threads);
  const auto series = static_cast<double>(built.stream.series_count());
  estimate.terms.push_back({"start-up", rates.startup_s, {}, 0});
  // The source reads (and preprocesses) on one thread at a time.
  const double source_bytes = series * static_cast<double>(built.stream.series_length) * sizeof(float);
  estimate.terms.push_back({fmt::format("source {}: {} of samples", built.source_name, bytes_text(source_bytes)),
                            source_bytes / rates.cpu_bytes_per_thread_s, {}, 0});
  for (const auto& p : built.preprocessing)  // a stage that learns from the whole input reads it once more first
    if (p.reads_input_first)
      estimate.terms.push_back({fmt::format("{}: the input read once more first", p.name),
                                source_bytes / rates.cpu_bytes_per_thread_s, {}, 0});
  // CPU devices (cpu:K) share the machine's threads evenly, as the run's arenas do.
  std::vector<int> cpu_devices;
  for (const auto& s : built.stages)
    for (const auto& d : s.devices)
      if (d.backend->residency() == Residency::Host && d.index >= 0 &&
          std::find(cpu_devices.begin(), cpu_devices.end(), d.index) == cpu_devices.end())
        cpu_devices.push_back(d.index);
  const int share = cpu_devices.empty() ? estimate.threads
                                        : std::max(1, estimate.threads / static_cast<int>(cpu_devices.size()));
  for (const auto& s : built.stages) {
    const double flops = s.stage->flops_per_series() * series;
    const double bytes = (s.bytes_in_per_series + s.bytes_out_per_series) * series;
    const auto replicas = static_cast<double>(s.devices.size());
    if (s.in_device_memory() || s.simulated()) {
      const SimModel& m = rates.accelerator;
      const double seconds = std::max(flops / m.flops_per_s_of(s.name), bytes / m.memory_bytes_per_s) / replicas;
      estimate.terms.push_back({fmt::format("{} on {} (modelled accelerator): {:.2g} flops", s.name, s.device, flops),
                                seconds, s.name, flops});
      continue;
    }
    const int used = s.whole_machine() ? estimate.threads
                                       : std::min(estimate.threads, static_cast<int>(s.devices.size()) * share);
    const double streamed = s.stage->streamed_bytes_per_series() * series;
    const double seconds = (std::max(flops / rates.cpu_flops_per_thread_s, bytes / rates.cpu_bytes_per_thread_s) +
                            streamed / rates.cpu_streamed_bytes_per_thread_s) /
                           used;
    estimate.terms.push_back(
        {fmt::format("{} on {}: {:.2g} flops, {} of tensors{}, on {} thread{}", s.name, s.device, flops,
                     bytes_text(bytes),
                     streamed > 0 ? fmt::format(", {} read again from memory", bytes_text(streamed)) : std::string(),
                     used, used == 1 ? "" : "s"),
         seconds, s.name, flops});
  }
  // Run summaries: on the host's threads (in parallel), or modelled with a stage on sim devices.
  for (const auto& s : built.stages) {
    const SummaryWork work = s.stage->summary_work();
    const double flops = work.flops_per_series * series + work.finish_flops;
    const double bytes = work.bytes_per_series * series + work.finish_bytes;
    if (flops <= 0 && bytes <= 0) continue;
    const SimModel& m = rates.accelerator;
    const double seconds =
        s.simulated()
            ? std::max(flops / m.flops_per_s_of(s.name), bytes / m.memory_bytes_per_s) / static_cast<double>(s.devices.size())
            : std::max(flops / rates.cpu_flops_per_thread_s, bytes / rates.cpu_bytes_per_thread_s) / estimate.threads;
    estimate.terms.push_back({fmt::format("run summary of {} on {}: {:.2g} flops, {} of memory traffic", s.name,
                                          s.simulated() ? s.device + " (modelled)"
                                                        : fmt::format("{} thread{}", estimate.threads,
                                                                      estimate.threads == 1 ? "" : "s"),
                                          flops, bytes_text(bytes)),
                              seconds, {}, 0});  // not the stage's own term: timed apart ("summary")
  }
  for (const auto& sink : built.sinks)  // drawing and encoding; the arrays' writing is in the start-up term
    if (const double seconds = sink.sink->finish_seconds(); seconds > 0)
      estimate.terms.push_back({fmt::format("sink {}: drawing and encoding", sink.name), seconds, {}, 0});
  return estimate;
}

}  // namespace detail
}  // namespace pacflow
