// Per-stage throughput on the reference workload's series (W1: 2048 samples at 512 Hz, bands
// 2:20:10 x 60:160:10, 18 bins, 200 surrogates), one batch of 16 series per iteration (counter:
// series per second), and the reference workloads W1-W3 end to end.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "engine/pipeline.hpp"
#include "pipelines/pipe_format.hpp"
#include "stages/builtin.hpp"
#include "stages/synthetic/synthetic_source.hpp"

namespace pacflow {
namespace {

constexpr std::int64_t kSeries = 16;
constexpr std::int64_t kLength = 2048;

struct Chain {
  PlanContext ctx;
  std::vector<std::unique_ptr<Stage>> stages;
  Batch batch;

  Chain() : ctx(stream()) {
    add("bandpass", {{"pha", "2:20:10"}, {"amp", "60:160:10"}});
    add("hilbert", json::object());
    add("mi", json::object());
    add("surrogates", {{"n", 200}});
    batch.series_count = kSeries;
    auto signal = batch.emplace("signal", {kLength}, DType::Float32).values<float>();
    stages::SyntheticConfig config;
    config.n_times = kLength;
    for (std::int64_t s = 0; s < kSeries; ++s) stages::synthesize_series(config, s, signal.data() + s * kLength);
  }
  static StreamInfo stream() {
    StreamInfo s;
    s.leading_dims = {1, kSeries};
    s.series_length = kLength;
    s.sample_rate = 512;
    return s;
  }
  void add(const std::string& name, const json& params) {
    const ElementInfo* info = stages::builtin_registry().find(ElementKind::Stage, name);
    ctx.begin_element();
    stages.push_back(info->make_stage(Params(params, info->params)));
    stages.back()->plan(ctx);
  }
};

void BM_Stage(benchmark::State& state) {
  Chain chain;
  const auto target = static_cast<std::size_t>(state.range(0));
  for (std::size_t i = 0; i < target; ++i) chain.stages[i]->process(chain.batch);  // inputs for the target
  for (auto _ : state) chain.stages[target]->process(chain.batch);
  state.counters["series_per_s"] = benchmark::Counter(static_cast<double>(kSeries), benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::vector<const char*>{"bandpass", "hilbert", "mi", "surrogates"}[target]);
}
BENCHMARK(BM_Stage)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->UseRealTime();

// The reference workloads end to end, as pipeline_cli runs them (pipelines/bench/wN.pipe), with the
// results written to a scratch directory. W2 takes several seconds per iteration.
void BM_Workload(benchmark::State& state) {
  const std::string name = "w" + std::to_string(state.range(0));
  const std::string out = (std::filesystem::temp_directory_path() / ("pacflow_bench_" + name)).string();
  for (auto _ : state) {
    Pipeline pipeline(stages::builtin_registry());
    load_pipe_file(std::string(PACFLOW_SOURCE_DIR) + "/pipelines/bench/" + name + ".pipe", pipeline);
    pipeline.redirect_outputs(out).run();
  }
  std::filesystem::remove_all(out);
  state.SetLabel(name);
}
BENCHMARK(BM_Workload)->DenseRange(1, 3)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace
}  // namespace pacflow

BENCHMARK_MAIN();
