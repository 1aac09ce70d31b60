// The engine and the device model (issue 3), with the model elements of bench/model_elements.hpp:
// - BM_EngineHop: a chain of 4 trivial stages on `cpu`, one series per batch: the engine's cost per
//   batch per stage hop (counter us_per_hop).
// - BM_RingHop: the same chain with a ring (8 slots) before every stage: the cost per hop when each
//   batch is copied into a slot, re-sequenced and its token handed back (counter us_per_hop).
// - BM_SimReplicated/N: one heavy stage (4 ms per batch on the modelled H100) replicated over N
//   sim devices; counter efficiency = ideal time (64 batches x 4 ms / N) / measured.
// - BM_SimPipelineSpeedup: four balanced stages (4 ms each) all on sim:0, then pinned one per
//   device on sim:0-3; counter speedup = first / second.
// - BM_SimCopyOverlap: copies in and out each as long as the compute (2 ms per batch, a slow
//   modelled link); counter total_over_max = measured / (batches x 2 ms), 1 when copies fully overlap.
#include <fmt/format.h>
#include <benchmark/benchmark.h>

#include <chrono>

#include "bench/model_elements.hpp"
#include "engine/api/pipeline.hpp"

namespace pacflow {
namespace {

constexpr double kH100Flops = 67e12;

double run_seconds(const Pipeline& pipeline, const RunOptions& options = {}) {
  const auto start = std::chrono::steady_clock::now();
  pipeline.run(options);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Four trivial stages in a chain, one series per batch; with `rings`, a ring before each.
void hop_chain(benchmark::State& state, bool rings) {
  const Registry registry = bench::model_registry();
  constexpr int kBatches = 4000, kHops = 4;
  Pipeline p(registry);
  p.source("zeros", {{"series", kBatches}, {"length", 1}});
  for (int i = 0; i < kHops; ++i) {
    json params = {{"in", i == 0 ? "signal" : fmt::format("t{}", i - 1)}, {"out", fmt::format("t{}", i)}};
    if (rings) params["ring"] = 8;
    p.stage("work", params);
  }
  p.sink("discard");
  double seconds = 0;
  for (auto _ : state) seconds += run_seconds(p, {1, 0, {}});
  state.counters["us_per_hop"] =
      1e6 * seconds / static_cast<double>(state.iterations()) / (kBatches * static_cast<double>(kHops + 2));
}
void BM_EngineHop(benchmark::State& state) { hop_chain(state, false); }
void BM_RingHop(benchmark::State& state) { hop_chain(state, true); }
BENCHMARK(BM_RingHop)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);
BENCHMARK(BM_EngineHop)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);

void BM_SimReplicated(benchmark::State& state) {
  const Registry registry = bench::model_registry();
  const auto devices = static_cast<int>(state.range(0));
  constexpr int kBatches = 64;
  constexpr double kComputeS = 4e-3;
  Pipeline p(registry);
  p.source("zeros", {{"series", kBatches}, {"length", 16}})
      .stage("work", {{"flops", kComputeS * kH100Flops}, {"on", "sim:0-" + std::to_string(devices - 1)}})
      .sink("discard");
  double seconds = 0;
  for (auto _ : state) seconds += run_seconds(p, {1, 0, {}});
  const double measured = seconds / static_cast<double>(state.iterations());
  state.counters["efficiency"] = kBatches * kComputeS / devices / measured;
}
BENCHMARK(BM_SimReplicated)->RangeMultiplier(2)->Range(1, 16)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

void BM_SimPipelineSpeedup(benchmark::State& state) {
  const Registry registry = bench::model_registry();
  constexpr int kBatches = 64;
  constexpr double kComputeS = 4e-3;
  const auto pipeline = [&](bool pinned) {
    Pipeline p(registry);
    p.source("zeros", {{"series", kBatches}, {"length", 16}});
    for (int i = 0; i < 4; ++i)
      p.stage("work", {{"in", i == 0 ? "signal" : fmt::format("t{}", i - 1)},
                       {"out", fmt::format("t{}", i)},
                       {"flops", kComputeS * kH100Flops},
                       {"on", pinned ? "sim:" + std::to_string(i) : "sim:0"}});
    return p.sink("discard");
  };
  double one = 0, four = 0;
  for (auto _ : state) {
    one += run_seconds(pipeline(false), {1, 0, {}});
    four += run_seconds(pipeline(true), {1, 0, {}});
  }
  state.counters["all_on_one_s"] = one / static_cast<double>(state.iterations());
  state.counters["pinned_s"] = four / static_cast<double>(state.iterations());
  state.counters["speedup"] = one / four;
}
BENCHMARK(BM_SimPipelineSpeedup)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

void BM_SimCopyOverlap(benchmark::State& state) {
  const Registry registry = bench::model_registry();
  constexpr int kBatches = 64;
  constexpr double kPhaseS = 2e-3;
  constexpr int kFloats = 1024;  // 4 KiB in and out per batch
  RunOptions options{1, 0, {}};
  options.sim_model.host_to_device_bytes_per_s = kFloats * 4 / kPhaseS;
  options.sim_model.device_to_host_bytes_per_s = kFloats * 4 / kPhaseS;
  options.sim_model.launch_s = 0;
  Pipeline p(registry);
  p.source("zeros", {{"series", kBatches}, {"length", kFloats}})
      .stage("work", {{"floats", kFloats}, {"flops", kPhaseS * kH100Flops}, {"on", "sim:0"}})
      .sink("discard");
  double seconds = 0;
  for (auto _ : state) seconds += run_seconds(p, options);
  state.counters["total_over_max"] = seconds / static_cast<double>(state.iterations()) / (kBatches * kPhaseS);
}
BENCHMARK(BM_SimCopyOverlap)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace
}  // namespace pacflow

BENCHMARK_MAIN();
