#pragma once
// Elements for engine and device benchmarks and tests: a source of zeros, a `work` stage whose
// only cost on a modelled device is what its parameters say, and a sink that discards. They let a
// benchmark measure the engine and the device model rather than PAC arithmetic.
#include <cstring>

#include "engine/api/registry.hpp"

namespace pacflow::bench {

class ZeroSource final : public Source {
 public:
  explicit ZeroSource(const Params& p) : series_(p.integer("series")), length_(p.integer("length")) {}
  StreamInfo open(const std::stop_token&) override {
    StreamInfo s;
    s.leading_dims = {1, series_};
    s.leading_names = {"epochs", "channels"};
    s.series_length = length_;
    s.sample_rate = 1000;
    return s;
  }
  void read(std::int64_t, std::int64_t count, float* dst) override {
    std::memset(dst, 0, static_cast<std::size_t>(count * length_) * sizeof(float));
  }

 private:
  std::int64_t series_, length_;
};

// Reads tensor `in`, writes `out` of `floats` per series (its first value copied through), and
// reports `flops` per series to modelled devices.
class WorkStage final : public Stage {
 public:
  explicit WorkStage(const Params& p)
      : in_(p.string("in")), out_(p.string("out")), floats_(p.integer("floats")), flops_(p.number("flops")) {}
  void plan(PlanContext& ctx) override {
    ctx.require(in_, "work");
    ctx.declare({out_, {floats_}, DType::Float32, true, "work output"});
  }
  void process(Batch& batch) override {
    const auto in = batch.at(in_).values<float>();
    auto out = batch.emplace(out_, {floats_}, DType::Float32).values<float>();
    const auto per_in = static_cast<std::int64_t>(in.size()) / batch.series_count;
    for (std::int64_t s = 0; s < batch.series_count; ++s)
      out[static_cast<std::size_t>(s * floats_)] = in[static_cast<std::size_t>(s * per_in)];
  }
  double flops_per_series() const override { return flops_; }

 private:
  std::string in_, out_;
  std::int64_t floats_;
  double flops_;
};

class DiscardSink final : public Sink {
 public:
  void plan(const PlanContext&) override {}
  void consume(const Batch&) override {}
  std::vector<std::filesystem::path> output_files() const override { return {}; }
  void finish(const json&, OutputSet&) override {}
};

inline Registry model_registry() {
  Registry r;
  r.add({ElementKind::Source, "zeros", "series of zeros",
         {{"series", ParamType::Integer, 64, "", ""}, {"length", ParamType::Integer, 16, "samples", ""}},
         [](const Params& p) { return std::make_unique<ZeroSource>(p); }, {}, {}});
  r.add({ElementKind::Stage, "work", "modelled work",
         {{"in", ParamType::String, "signal", "", ""},
          {"out", ParamType::String, "out", "", ""},
          {"floats", ParamType::Integer, 1, "", ""},
          {"flops", ParamType::Number, 0.0, "", ""}},
         {}, [](const Params& p) { return std::make_unique<WorkStage>(p); }, {}});
  r.add({ElementKind::Sink, "discard", "drops every batch", {}, {}, {},
         [](const Params&) { return std::make_unique<DiscardSink>(); }});
  return r;
}

}  // namespace pacflow::bench
