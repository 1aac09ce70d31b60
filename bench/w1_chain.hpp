#pragma once
// The reference workload W1's stages on one batch of its series (2048 samples at 512 Hz of driven
// synthetic data, bands 2:20:10 x 60:160:10, 18 bins, 200 surrogates), planned as pipeline_cli
// plans pipelines/bench/w1.pipe: the input of the per-stage and kernel benchmarks.
#include <memory>
#include <string>
#include <vector>

#include "engine/api/pipeline.hpp"
#include "stages/builtin.hpp"
#include "stages/synthetic/synthetic_source.hpp"

namespace pacflow::bench {

struct W1Chain {
  static constexpr std::int64_t kSeries = 16;
  static constexpr std::int64_t kLength = 2048;
  static constexpr std::int64_t kPhaseBands = 10;
  static constexpr std::int64_t kAmplitudeBands = 10;

  PlanContext ctx;
  std::vector<std::unique_ptr<Stage>> stages;  // bandpass, hilbert, mi, surrogates
  Batch batch;                                 // `signal`, then whatever the stages run so far wrote

  W1Chain() : ctx(stream()) {
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
  // Runs stages [0, count) on the batch.
  void run_first(std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) stages[i]->process(batch);
  }
  static StreamInfo stream() {
    StreamInfo s;
    s.leading_dims = {1, kSeries};
    s.series_length = kLength;
    s.sample_rate = 512;
    return s;
  }

 private:
  void add(const std::string& name, const json& params) {
    const ElementInfo* info = stages::builtin_registry().find(ElementKind::Stage, name);
    ctx.begin_element();
    stages.push_back(info->make_stage(Params(params, info->params)));
    stages.back()->plan(ctx);
    stages.back()->prepare();
  }
};

}  // namespace pacflow::bench
