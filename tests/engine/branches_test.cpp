// The DAG inside the chain: stages whose inputs are already written run as parallel branches of the
// same batch (engine/plan/branches.hpp, engine/run/branch_join.hpp), derived from the declared
// reads and writes, with results bitwise identical to the same stages run one after another.
#include <atomic>
#include <chrono>
#include <gtest/gtest.h>
#include <map>
#include <oneapi/tbb/info.h>
#include <thread>

#include "engine/api/errors.hpp"
#include "engine/run/branch_join.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/api/plan_report.hpp"
#include "tests/engine/test_elements.hpp"

namespace pacflow {
namespace {

using testing::Probe;
using testing::TestRegistry;

// Stage: out[s] = factor * (first sample of row s of `in`) + s / 1000, after sleeping `sleep_ms`;
// fails on batch `fail_on`. Counts how many of its kind run at once.
class ScaleStage final : public Stage {
 public:
  ScaleStage(const Params& p, Probe* probe)
      : in_(p.string("in")), out_(p.string("out")), factor_(static_cast<float>(p.number("factor"))),
        sleep_ms_(p.integer("sleep_ms")), fail_on_(p.integer("fail_on")), probe_(probe) {}
  void plan(PlanContext& ctx) override {
    ctx.require(in_, "scale");
    ctx.declare({out_, {1}, DType::Float32, true, ""});
  }
  void process(Batch& batch) override {
    const int now = ++probe_->alive;
    int peak = probe_->peak.load();
    while (now > peak && !probe_->peak.compare_exchange_weak(peak, now)) {}
    std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms_));
    --probe_->alive;
    if (batch.index == fail_on_) throw std::runtime_error("injected failure");
    const auto in = batch.at(in_).values<float>();
    auto out = batch.emplace(out_, {1}, DType::Float32).values<float>();
    const auto row = static_cast<std::int64_t>(in.size()) / batch.series_count;
    for (std::int64_t s = 0; s < batch.series_count; ++s)
      out[static_cast<std::size_t>(s)] =
          factor_ * in[static_cast<std::size_t>(s * row)] + static_cast<float>(batch.first_series + s) / 1000.0f;
  }

 private:
  std::string in_, out_;
  float factor_;
  std::int64_t sleep_ms_, fail_on_;
  Probe* probe_;
};

// Sink: every tensor of every batch, by name, in series order, and the names it was handed.
struct Collected {
  std::map<std::string, std::vector<float>> values;
  std::vector<std::string> seen;
  bool aborted = false;
};

class CollectSink final : public Sink {
 public:
  explicit CollectSink(Collected* into) : into_(into) {}
  void plan(const PlanContext&) override {}
  void consume(const Batch& batch) override {
    for (const auto& [name, t] : batch.tensors) {
      for (float v : t.values<float>()) into_->values[name].push_back(v);
      if (std::find(into_->seen.begin(), into_->seen.end(), name) == into_->seen.end()) into_->seen.push_back(name);
    }
  }
  std::vector<std::filesystem::path> output_files() const override { return {}; }
  void finish(const json&, OutputSet&) override {}
  void abort() noexcept override { into_->aborted = true; }

 private:
  Collected* into_;
};

struct BranchRegistry : TestRegistry {
  Probe scaling;
  Collected collected;
  BranchRegistry() {
    registry.add({ElementKind::Stage, "scale", "",
                  {{"in", ParamType::String, "signal", "", ""},
                   {"out", ParamType::String, "scaled", "", ""},
                   {"factor", ParamType::Number, 1.0, "", ""},
                   {"sleep_ms", ParamType::Integer, 0, "", ""},
                   {"fail_on", ParamType::Integer, -1, "", ""}},
                  {},
                  [this](const Params& p) { return std::make_unique<ScaleStage>(p, &scaling); }, {}});
    registry.add({ElementKind::Sink, "collect", "", {}, {}, {},
                  [this](const Params&) { return std::make_unique<CollectSink>(&collected); }});
  }
};

// signal ─► double ─► twice ─┬─► scale a ─► a ─► scale c (reads a: after the group)
//                            └─► scale b ─► b
Pipeline diamond(const Registry& registry, json extra_b = json::object(), json extra_c = json::object()) {
  json b = {{"in", "twice"}, {"out", "b"}, {"factor", 3}};
  b.update(extra_b);
  json c = {{"in", "a"}, {"out", "c"}, {"factor", -2}};
  c.update(extra_c);
  return Pipeline(registry)
      .source("count", {{"series", 24}, {"length", 4}})
      .stage("double")
      .stage("scale", {{"in", "twice"}, {"out", "a"}, {"factor", 0.5}})
      .stage("scale", b)
      .stage("scale", c)
      .sink("collect");
}

TEST(Branches, FormFromTheDeclaredReadsAndWrites) {
  BranchRegistry t;
  const json plan = diamond(t.registry).validate().to_json();
  ASSERT_EQ(plan["branches"], json::parse(R"([["scale", "scale"]])")) << plan["branches"];
  const json& elements = plan["pipeline"];
  EXPECT_FALSE(elements[1].contains("branch_group"));  // double: its output is what they read
  EXPECT_EQ(elements[2]["branch_group"], 0);
  EXPECT_EQ(elements[3]["branch_group"], 0);
  EXPECT_FALSE(elements[4].contains("branch_group"));  // reads a: waits for the group

  // Independent of the stage before: a source-only reader joins the first stage's group.
  const json beside = Pipeline(t.registry)
                          .source("count")
                          .stage("double")
                          .stage("scale", {{"in", "signal"}, {"out", "a"}})
                          .sink("collect")
                          .validate().to_json();
  EXPECT_EQ(beside["branches"], json::parse(R"([["double", "scale"]])"));
}

TEST(Branches, StayAChainAcrossARingOrOffTheCpu) {
  BranchRegistry t;
  // A ring before scale b starts a segment: scale a stays alone, b runs beside c (c reads a, from before it).
  EXPECT_EQ(diamond(t.registry, {{"ring", 2}}).validate().to_json()["branches"], json::parse(R"([["scale", "scale"]])"));
  const json cut = diamond(t.registry, {{"ring", 2}}).validate().to_json()["pipeline"];
  EXPECT_FALSE(cut[2].contains("branch_group"));
  EXPECT_EQ(cut[3]["branch_group"], 0);
  EXPECT_EQ(cut[4]["branch_group"], 0);
  EXPECT_EQ(diamond(t.registry, {{"on", "sim:0"}}).validate().to_json()["branches"], json::array());
  // A reader of what the stage before writes waits for it.
  const json chained = Pipeline(t.registry)
                           .source("count")
                           .stage("double")
                           .stage("scale", {{"in", "twice"}, {"out", "twice2"}})
                           .stage("scale", {{"in", "twice2"}, {"out", "a"}})
                           .sink("collect")
                           .validate().to_json();
  EXPECT_EQ(chained["branches"], json::array());
}

TEST(Branches, RunSideBySideOnEachBatch) {
  if (oneapi::tbb::info::default_concurrency() < 2) GTEST_SKIP() << "one hardware thread: nothing runs side by side";
  BranchRegistry t;
  // One batch in flight, so only the branches can overlap.
  Pipeline(t.registry)
      .source("count")
      .stage("scale", {{"in", "signal"}, {"out", "a"}, {"sleep_ms", 100}})
      .stage("scale", {{"in", "signal"}, {"out", "b"}, {"sleep_ms", 100}})
      .sink("collect")
      .run({40, 1, {}});
  EXPECT_EQ(t.scaling.peak.load(), 2);
}

TEST(Branches, GiveBitwiseTheResultsOfTheChainForAnyBatching) {
  std::map<std::string, std::vector<float>> chain;
  {
    BranchRegistry t;
    // Rings before scale b and scale c cut every group: the same stages one after another.
    const Pipeline chained = diamond(t.registry, {{"ring", 3}}, {{"ring", 2}});
    ASSERT_EQ(chained.validate().to_json()["branches"], json::array());
    chained.run({5, 2, {}});
    chain = t.collected.values;
  }
  ASSERT_EQ(chain.at("c").size(), 24u);
  EXPECT_FLOAT_EQ(chain.at("c")[7], -2.0f * (0.5f * 14.0f + 0.007f) + 0.007f);
  for (std::int64_t batch : {1, 5, 24}) {
    for (int in_flight : {1, 4}) {
      BranchRegistry t;
      diamond(t.registry).run({batch, in_flight, {}});
      for (const char* name : {"a", "b", "c", "twice"})
        EXPECT_EQ(t.collected.values.at(name), chain.at(name)) << name << " batch " << batch;
    }
  }
}

TEST(Branches, DropWhatOnlyTheGroupReadsOnceEveryBranchIsDone) {
  BranchRegistry t;
  Pipeline(t.registry)
      .source("count")
      .stage("double")
      .stage("scale", {{"in", "signal"}, {"out", "a"}, {"sleep_ms", 5}})
      .stage("scale", {{"in", "signal"}, {"out", "b"}})
      .sink("collect")
      .run({7, 3, {}});
  std::sort(t.collected.seen.begin(), t.collected.seen.end());
  EXPECT_EQ(t.collected.seen, (std::vector<std::string>{"a", "b", "twice"}));  // signal dropped after both
  EXPECT_EQ(t.collected.values.at("b").size(), 40u);
}

TEST(Branches, AFailingBranchStopsTheRunNamingItsStageAndBatch) {
  BranchRegistry t;
  try {
    diamond(t.registry, {{"fail_on", 2}, {"sleep_ms", 1}}).run({4, 3, {}});
    FAIL() << "the failure was lost";
  } catch (const StageError& e) {
    EXPECT_EQ(e.stage(), "scale");
    EXPECT_EQ(e.batch(), 2);
    EXPECT_NE(std::string(e.what()).find("injected failure"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(t.collected.aborted);
}

TEST(BranchJoin, BranchesSeeTheBatchWithoutACopyAndHandBackOnlyWhatTheyWrote) {
  auto batch = std::make_shared<Batch>();
  batch->index = 5;
  batch->series_count = 2;
  batch->emplace("in", {3}, DType::Float32).values<float>()[4] = 7.0f;
  batch->emplace("read_last_here", {1}, DType::Float32);
  batch->emplace("replaced", {1}, DType::Float32);
  detail::BranchJoin join(2, {"read_last_here"});
  std::vector<detail::BatchPtr> forks = join.fork(batch);
  ASSERT_EQ(forks.size(), 2u);
  for (const auto& f : forks) {
    EXPECT_EQ(f->index, 5);
    EXPECT_EQ(f->series_count, 2);
    EXPECT_EQ(f->at("in").address(), batch->at("in").address());  // a view, not a copy
    EXPECT_EQ(f->at("in").values<float>()[4], 7.0f);
  }
  forks[0]->emplace("out0", {1}, DType::Float32).values<float>()[1] = 1.5f;
  forks[1]->emplace("replaced", {2}, DType::Float32);  // written anew by this branch
  forks[1]->tensors.erase("in");                        // what a branch drops stays in the batch
  const Batch* whole = batch.get();
  batch.reset();  // the join holds it now
  EXPECT_EQ(join.join(std::move(forks[1])), nullptr);  // one branch still out
  const detail::BatchPtr back = join.join(std::move(forks[0]));
  ASSERT_EQ(back.get(), whole);
  EXPECT_EQ(back->at("out0").values<float>()[1], 1.5f);
  EXPECT_EQ(back->at("replaced").shape(), (Shape{2, 2}));
  EXPECT_EQ(back->at("in").values<float>()[4], 7.0f);
  EXPECT_FALSE(back->has("read_last_here"));  // dropped once the group is done
  EXPECT_EQ(back.use_count(), 1);              // no view of its own keeps it alive
}

TEST(Branches, GraphDrawsEachGroupInOneBox) {
  BranchRegistry t;
  const std::string dot = diamond(t.registry).graph();
  const auto box = dot.find("subgraph cluster_branches0 {");
  ASSERT_NE(box, std::string::npos) << dot;
  const auto end = dot.find("  }\n", box);
  const std::string inside = dot.substr(box, end - box);
  EXPECT_NE(inside.find("n2 [label=\"scale"), std::string::npos) << dot;
  EXPECT_NE(inside.find("n3 [label=\"scale"), std::string::npos) << dot;
  EXPECT_EQ(inside.find("n4 [label="), std::string::npos) << dot;
  EXPECT_NE(dot.find("n1 -> n2 [label=\"twice\"]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("n1 -> n3 [label=\"twice\"]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("n2 -> n4 [label=\"a\"]"), std::string::npos) << dot;
}

}  // namespace
}  // namespace pacflow
