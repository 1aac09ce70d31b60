// The PAC pipeline on GPUs (issue 5), end to end as pipeline_cli runs it (pipelines/bench/wN.pipe
// with every stage on the GPUs, outputs written to a scratch directory):
// - BM_GpuWorkload/N: workload WN on cuda:0 with the automatic batch size.
// - BM_GpuBatchSize/B: W2 (2048 series) on cuda:0 in batches of B series.
// - BM_GpuCount/N: W2 over the first N visible GPUs (cuda:0-(N-1)), one registration per GPU count
//   up to the number visible.
// Counters: series_per_s (whole run), and kernel_s per stage (summed over devices, from result.json).
// Each skips with the reason when no GPU is visible. Expected output: bench/README.md.
#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include "bench/workloads.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/placement/devices.hpp"
#include "stages/builtin.hpp"

namespace pacflow {
namespace {

// Runs workload `name` on `devices` in batches of `batch` (0: automatic) once per iteration.
void run_workload(benchmark::State& state, const std::string& name, const std::string& devices, std::int64_t batch) {
  if (cuda_availability().count() == 0) {
    state.SkipWithError(("no GPU visible: " + cuda_availability().why_none).c_str());
    return;
  }
  const bench::ScratchOutput out("gpu_" + name);
  json report;
  std::int64_t series = 0;
  for (auto _ : state) {
    Pipeline pipeline(stages::builtin_registry());
    report = bench::load_workload(pipeline, name, out).devices(devices).run({batch, 0, {}}).to_json();
    series = report["run"]["series"].get<std::int64_t>();
  }
  state.counters["series_per_s"] =
      benchmark::Counter(static_cast<double>(series), benchmark::Counter::kIsIterationInvariantRate);
  for (const auto& row : report["run"]["stages"])
    if (row.contains("gpu_kernel_s"))
      state.counters[row["name"].get<std::string>() + "_kernel_s"] = row["gpu_kernel_s"].get<double>();
  state.counters["batch_series"] = report["run"]["batch_size"].get<double>();
  state.SetLabel(fmt::format("{} on {}", name, devices));
}

void BM_GpuWorkload(benchmark::State& state) {
  run_workload(state, fmt::format("w{}", state.range(0)), "cuda:0", 0);
}
BENCHMARK(BM_GpuWorkload)->DenseRange(1, 3)->Unit(benchmark::kMillisecond)->UseRealTime()->MinWarmUpTime(0.5);

void BM_GpuBatchSize(benchmark::State& state) { run_workload(state, "w2", "cuda:0", state.range(0)); }
BENCHMARK(BM_GpuBatchSize)->RangeMultiplier(4)->Range(32, 2048)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_GpuCount(benchmark::State& state) {
  const auto n = state.range(0);
  run_workload(state, "w2", n == 1 ? "cuda:0" : fmt::format("cuda:0-{}", n - 1), 0);
}
// One registration per GPU count this machine has (at least one, which skips without a GPU).
const bool gpu_counts_registered = [] {
  auto* b = benchmark::RegisterBenchmark("BM_GpuCount", BM_GpuCount);
  for (int n = 1; n <= std::max(1, cuda_availability().count()); ++n) b->Arg(n);
  b->Unit(benchmark::kMillisecond)->UseRealTime();
  return true;
}();

}  // namespace
}  // namespace pacflow

BENCHMARK_MAIN();
