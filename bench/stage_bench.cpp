// Per-stage throughput on the reference workload's series (W1: 2048 samples at 512 Hz, bands
// 2:20:10 x 60:160:10, 18 bins, 200 surrogates), one batch of 16 series per iteration (counter:
// series per second), and the reference workloads W1-W3 end to end.
#include <fmt/format.h>
#include <benchmark/benchmark.h>


#include "bench/w1_chain.hpp"
#include "bench/workloads.hpp"
#include "engine/api/pipeline.hpp"
#include "stages/builtin.hpp"

namespace pacflow {
namespace {

void BM_Stage(benchmark::State& state) {
  bench::W1Chain chain;
  const auto target = static_cast<std::size_t>(state.range(0));
  chain.run_first(target);  // inputs for the target
  for (auto _ : state) chain.stages[target]->process(chain.batch);
  state.counters["series_per_s"] =
      benchmark::Counter(static_cast<double>(bench::W1Chain::kSeries), benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::vector<const char*>{"bandpass", "hilbert", "mi", "surrogates"}[target]);
}
BENCHMARK(BM_Stage)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->UseRealTime();

// The reference workloads end to end, as pipeline_cli runs them (pipelines/bench/wN.pipe), with the
// results written to a scratch directory. W2 takes several seconds per iteration.
void BM_Workload(benchmark::State& state) {
  const std::string name = fmt::format("w{}", state.range(0));
  const bench::ScratchOutput out(name);
  for (auto _ : state) {
    Pipeline pipeline(stages::builtin_registry());
    bench::load_workload(pipeline, name, out).run();
  }
  state.SetLabel(name);
}
BENCHMARK(BM_Workload)->DenseRange(1, 3)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace
}  // namespace pacflow

BENCHMARK_MAIN();
