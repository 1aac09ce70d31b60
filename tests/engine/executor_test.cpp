// Engine tests with tiny stages defined here: the executor must deliver every batch once, in
// order, with bounded batches in flight, and turn the first failure into one clear error.
#include <atomic>
#include <chrono>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "engine/api/errors.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/api/plan_report.hpp"
#include "engine/api/trace.hpp"
#include "engine/placement/devices.hpp"
#include "tests/engine/test_elements.hpp"

namespace pacflow {
namespace {

using testing::TestRegistry;

TEST(Executor, DeliversEveryBatchOnceInIndexOrder) {
  TestRegistry t;
  const json report = Pipeline(t.registry).source("count").stage("double", {{"sleep_ms", 2}}).sink("record").run({3, 4, {}}).to_json();
  ASSERT_EQ(t.record.batch_order.size(), 14u);  // ceil(40 / 3)
  for (std::size_t i = 0; i < t.record.batch_order.size(); ++i) EXPECT_EQ(t.record.batch_order[i], static_cast<std::int64_t>(i));
  ASSERT_EQ(t.record.values.size(), 40u);
  for (std::size_t i = 0; i < 40; ++i) EXPECT_EQ(t.record.values[i], 2.0f * static_cast<float>(i));
  EXPECT_TRUE(t.record.finished);
  EXPECT_EQ(report["run"]["batches"], 14);
  EXPECT_EQ(report["run"]["stages"][1]["name"], "double");
  EXPECT_EQ(report["run"]["stages"][1]["batches"], 14);
}

TEST(Executor, GivesIdenticalResultsForAnyBatchSizeAndInFlightLimit) {
  std::vector<float> first;
  for (std::int64_t batch : {1, 3, 7, 40, 100}) {
    for (int in_flight : {1, 2, 8}) {
      TestRegistry t;
      Pipeline(t.registry).source("count").stage("double", {{"sleep_ms", 1}}).sink("record").run({batch, in_flight, {}});
      if (first.empty()) first = t.record.values;
      EXPECT_EQ(t.record.values, first) << "batch " << batch << " in flight " << in_flight;
    }
  }
}

TEST(Executor, NeverHasMoreBatchesInFlightThanTheLimit) {
  TestRegistry t;
  Pipeline(t.registry).source("count", {{"series", 64}}).stage("double", {{"sleep_ms", 3}}).sink("record").run({1, 3, {}});
  EXPECT_LE(t.probe.peak.load(), 3);
  EXPECT_EQ(t.record.values.size(), 64u);
}

TEST(Executor, DropsIntermediateTensorsBeforeTheSinks) {
  TestRegistry t;
  Pipeline(t.registry).source("count").stage("double").sink("record").run({8, 2, {}});
  for (const auto& name : t.record.tensors_seen) EXPECT_EQ(name, "twice");
}

TEST(Executor, FirstFailureCancelsRunNamesStageAndBatchAndAbortsSinks) {
  TestRegistry t;
  try {
    Pipeline(t.registry).source("count", {{"series", 200}}).stage("double", {{"fail_on", 5}, {"sleep_ms", 1}}).sink("record").run({1, 4, {}});
    FAIL() << "expected StageError";
  } catch (const StageError& e) {
    EXPECT_EQ(e.stage(), "double");
    EXPECT_EQ(e.batch(), 5);
    EXPECT_NE(std::string(e.what()).find("injected failure"), std::string::npos);
  }
  EXPECT_TRUE(t.record.aborted);
  EXPECT_FALSE(t.record.finished);
  EXPECT_LE(t.record.batch_order.size(), 5u);  // nothing at or after the failed batch reached the sink
}

TEST(Executor, ReportsProgressForEveryBatch) {
  TestRegistry t;
  std::vector<std::int64_t> done;
  RunOptions options{5, 2, [&](const Progress& p) {
                       done.push_back(p.batches_done);
                       EXPECT_EQ(p.batches_total, 8);
                     }};
  Pipeline(t.registry).source("count").stage("double").sink("record").run(options);
  ASSERT_EQ(done.size(), 8u);
  EXPECT_EQ(done.back(), 8);
}

TEST(Executor, TraceHasOneSpanPerElementAndBatchInChromeFormat) {
  TestRegistry t;
  TraceRecorder trace;
  RunOptions options{4, 3, {}, &trace};
  Pipeline(t.registry).source("count").stage("double", {{"sleep_ms", 1}}).sink("record").run(options);
  const json events = trace.to_json().at("traceEvents");
  std::map<std::string, std::set<std::int64_t>> batches;  // element -> batches seen
  std::size_t spans = 0;
  for (const auto& e : events) {
    if (e.at("ph") == "M") continue;  // process and thread names
    ASSERT_EQ(e.at("ph"), "X");
    EXPECT_GE(e.at("ts").get<double>(), 0.0);
    EXPECT_GE(e.at("dur").get<double>(), 0.0);
    EXPECT_EQ(e.at("args").at("device"), "cpu");
    EXPECT_TRUE(batches[e.at("name").get<std::string>()].insert(e.at("args").at("batch").get<std::int64_t>()).second)
        << "a second span for one element and batch";
    ++spans;
  }
  EXPECT_EQ(spans, 3u * 10u);  // source, stage and sink for each of ceil(40 / 4) batches
  for (const char* element : {"count", "double", "record"}) EXPECT_EQ(batches[element].size(), 10u) << element;
}

// A caller's observer: counts each element's work and spans, and the batches delivered, in order.
class CountingObserver final : public RunObserver {
 public:
  std::int64_t fail_at = -1;  // on_delivered throws for this batch
  std::map<std::pair<ElementKind, std::size_t>, int> work;
  std::size_t spans = 0;
  std::vector<std::int64_t> delivered;
  void on_work(const ElementWork& w) override {
    const std::lock_guard lock(mutex_);
    EXPECT_LE(w.start, w.end);
    ++work[{w.kind, w.position}];
  }
  void on_span(const Span&) override {
    const std::lock_guard lock(mutex_);
    ++spans;
  }
  void on_delivered(const Batch& batch) override {
    if (batch.index == fail_at) throw std::runtime_error("observer gave up");
    delivered.push_back(batch.index);
  }
  bool wants_spans() const override { return true; }

 private:
  std::mutex mutex_;
};

TEST(Executor, ObserversHearEveryElementsWorkAndEveryDeliveryInOrder) {
  for (const char* on : {"cpu", "cpu:*", "sim:0,1"}) {
    TestRegistry t;
    CountingObserver observer;
    RunOptions options;
    options.batch_size = 4;
    options.max_in_flight = 3;
    options.observers = {&observer};
    Pipeline(t.registry).source("count").stage("double", {{"on", on}, {"sleep_ms", 1}}).sink("record").run(options);
    EXPECT_EQ((observer.work[{ElementKind::Source, 0}]), 10) << on;
    EXPECT_EQ((observer.work[{ElementKind::Stage, 0}]), 10) << on;
    EXPECT_EQ((observer.work[{ElementKind::Sink, 0}]), 10) << on;
    EXPECT_EQ(observer.work.size(), 3u) << on;
    // A span per element and batch (a modelled device draws its copies too).
    EXPECT_EQ(observer.spans, std::string(on).starts_with("sim") ? 50u : 30u) << on;
    ASSERT_EQ(observer.delivered.size(), 10u) << on;
    for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(observer.delivered[i], static_cast<std::int64_t>(i)) << on;
  }
}

TEST(Executor, AnObserversFailureFailsTheRunAndLeavesNoOutput) {
  TestRegistry t;
  CountingObserver observer;
  observer.fail_at = 3;
  RunOptions options;
  options.batch_size = 4;
  options.max_in_flight = 3;
  options.observers = {&observer};
  EXPECT_THROW(Pipeline(t.registry).source("count").stage("double").sink("record").run(options), std::runtime_error);
  EXPECT_EQ(observer.delivered.size(), 3u);
  EXPECT_TRUE(t.record.aborted);
  EXPECT_FALSE(t.record.finished);
}

TEST(Graph, DotHasANodePerElementAndAnEdgePerTensorFlow) {
  TestRegistry t;
  RunOptions options;
  options.max_in_flight = 6;
  options.batch_size = 4;
  const std::string dot = Pipeline(t.registry).source("count").stage("double").sink("record").graph(options);
  EXPECT_EQ(dot.rfind("digraph pacflow {", 0), 0u);
  EXPECT_NE(dot.find("n0 [label=\"count\\nsource\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("n1 [label=\"double\\nstage on cpu\\n1 replica\"]"), std::string::npos) << dot;
  const std::string replicated =
      Pipeline(t.registry).source("count").stage("double", {{"on", "cpu:*"}}).sink("record").graph();
  if (cpu_device_count() > 1) {
    EXPECT_NE(replicated.find(fmt::format("{} replicas", cpu_device_count())), std::string::npos) << replicated;
  }
  EXPECT_NE(dot.find("n0 -> n1 [label=\"signal\"]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("n1 -> n2 [label=\"twice\"]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("at most 6 batches of 4 series in flight"), std::string::npos) << dot;
}

TEST(Builder, RejectsUnknownElementWithSuggestion) {
  TestRegistry t;
  Pipeline p(t.registry);
  try {
    p.stage("duoble");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "unknown stage \"duoble\"; did you mean \"double\"?");
  }
}

TEST(Builder, LocatesUnknownParameterAtItsPosition) {
  TestRegistry t;
  Pipeline p(t.registry);
  p.source("count");
  ElementSpec spec;  // field by field: g++ 12 -O3 misreads the aggregate initialiser (-Wmaybe-uninitialized)
  spec.name = "double";
  spec.params = {{"fail_onn", 3}};
  spec.where = {"x.pipe", 2, 1};
  spec.param_where["fail_onn"] = {"x.pipe", 2, 14};
  p.add(spec).sink("record");
  try {
    p.validate();
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "x.pipe:2:14: stage \"double\": unknown parameter \"fail_onn\"; did you mean \"fail_on\"?");
  }
}

TEST(Builder, RequiresSourceFirstAndASink) {
  TestRegistry t;
  EXPECT_THROW(Pipeline(t.registry).stage("double").sink("record").validate(), InputError);
  EXPECT_THROW(Pipeline(t.registry).source("count").stage("double").validate(), InputError);
  EXPECT_THROW(Pipeline(t.registry).source("count").sink("record").stage("double").validate(), InputError);
}

TEST(Builder, SetOverridesAParameterByElementName) {
  TestRegistry t;
  Pipeline p(t.registry);
  p.source("count").stage("double").sink("record");
  p.set("source", "series", 5).set("double", "sleep_ms", 0);
  p.run({2, 2, {}});
  EXPECT_EQ(t.record.values.size(), 5u);
  EXPECT_THROW(p.set("nosuch", "x", 1), InputError);
}

TEST(Builder, RejectsUnavailableOrMalformedDevicesNamingTheAvailableOnes) {
  TestRegistry t;
  for (const char* bad : {"sim:64", "gpu", "cpu:99", "cpu:a", "cpu:1-0", "cpu:0,0", "cpu:", "cuda:x", "cuda:0,0"}) {
    try {
      Pipeline(t.registry).source("count").stage("double", {{"on", bad}}).sink("record").validate();
      ADD_FAILURE() << bad << " accepted";
    } catch (const InputError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("parameter \"on\""), std::string::npos) << message;
      EXPECT_NE(message.find("available here: cpu, cpu:0"), std::string::npos) << message;
    }
  }
  EXPECT_THROW(Pipeline(t.registry).source("count").stage("double").sink("record").devices("cpu:x").validate(),
               InputError);
}

// Without a GPU, a stage placed on cuda stops the build with the runtime's reason and the way out;
// with fallback=cpu (on the stage or for the whole run) it runs on the CPU, saying so once.
TEST(Builder, GpuPlacementWithoutAGpuFailsClearlyOrFallsBackToTheCpu) {
  if (cuda_availability().count() > 0) GTEST_SKIP() << "a GPU is visible here: the no-GPU paths cannot be reached";
  TestRegistry t;
  try {
    Pipeline(t.registry).source("count").stage("double", {{"on", "cuda:0"}}).sink("record").validate();
    ADD_FAILURE() << "cuda:0 accepted without a GPU";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("parameter \"on\": cuda:0 asks for a GPU, but none is visible: " +
                           cuda_availability().why_none),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("fallback=cpu"), std::string::npos) << message;
  }
  EXPECT_THROW(Pipeline(t.registry).source("count").stage("double").sink("record").devices("cuda:*").validate(),
               InputError);
  const json stage_fallback = Pipeline(t.registry)
                                  .source("count")
                                  .stage("double", {{"on", "cuda:*"}, {"fallback", "cpu"}})
                                  .sink("record")
                                  .run({4, 2, {}}).to_json();
  ASSERT_EQ(t.record.values.size(), 40u);
  for (std::size_t i = 0; i < 40; ++i) EXPECT_EQ(t.record.values[i], 2.0f * static_cast<float>(i));
  ASSERT_EQ(stage_fallback["warnings"].size(), 1u) << stage_fallback["warnings"];
  EXPECT_NE(stage_fallback["warnings"][0].get<std::string>().find("fallback=cpu: double (on=cuda:*) runs on the CPU"),
            std::string::npos)
      << stage_fallback["warnings"];
  EXPECT_EQ(stage_fallback["pipeline"][1]["device"], "cpu");
  const json run_fallback =
      Pipeline(t.registry).source("count").stage("double").sink("record").devices("cuda:*").fallback("cpu").validate().to_json();
  EXPECT_EQ(run_fallback["pipeline"][1]["device"], "cpu");
  EXPECT_THROW(Pipeline(t.registry).source("count").stage("double", {{"fallback", "gpu"}}).sink("record").validate(),
               InputError);
}

// A stage without CUDA code cannot be placed on a GPU; the message says why, whatever the machine.
TEST(Builder, StageWithoutCudaCodeOnAGpuIsRefusedOrFallsBack) {
  if (cuda_availability().count() == 0) GTEST_SKIP() << "no GPU visible: " << cuda_availability().why_none;
  TestRegistry t;
  try {
    Pipeline(t.registry).source("count").stage("double", {{"on", "cuda:0"}}).sink("record").validate();
    ADD_FAILURE() << "a CPU-only stage was placed on cuda:0";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot run on a GPU: it has no CUDA implementation"), std::string::npos)
        << e.what();
  }
  const json plan =
      Pipeline(t.registry).source("count").stage("double", {{"on", "cuda:0"}, {"fallback", "cpu"}}).sink("record").validate().to_json();
  EXPECT_EQ(plan["pipeline"][1]["device"], "cpu");
}

TEST(Executor, PinnedAndReplicatedStagesGiveIdenticalResults) {
  std::vector<float> reference;
  {
    TestRegistry t;
    Pipeline(t.registry).source("count").stage("double").sink("record").run({3, 4, {}});
    reference = t.record.values;
  }
  const std::string last = "cpu:" + std::to_string(cpu_device_count() - 1);
  const std::vector<std::string> placements = {"cpu:0", last, "cpu:*", "cpu:0-" + std::to_string(cpu_device_count() - 1)};
  for (const std::string& on : placements) {
    TestRegistry t;
    const json report =
        Pipeline(t.registry).source("count").stage("double", {{"on", on}, {"sleep_ms", 1}}).sink("record").run({3, 4, {}}).to_json();
    EXPECT_EQ(t.record.values, reference) << on;
    EXPECT_EQ(report["pipeline"][1]["device"].get<std::string>().rfind("cpu:", 0), 0u) << report["pipeline"][1];
  }
  TestRegistry pooled;
  Pipeline(pooled.registry).source("count").stage("double").sink("record").devices("cpu:*").run({1, 8, {}});
  EXPECT_EQ(pooled.record.values, reference);
}

TEST(Executor, ReplicasNeverRunMoreBatchesThanThereAreReplicas) {
  TestRegistry t;
  Pipeline(t.registry).source("count", {{"series", 24}}).stage("double", {{"on", "cpu:0"}, {"sleep_ms", 2}}).sink("record").run({1, 8, {}});
  EXPECT_EQ(t.probe.peak.load(), 1);  // one replica: one batch at a time
  EXPECT_EQ(t.record.values.size(), 24u);
}

TEST(Executor, FailureInOneReplicaCancelsTheRunNamingStageBatchAndDevice) {
  TestRegistry t;
  try {
    Pipeline(t.registry)
        .source("count", {{"series", 200}})
        .stage("double", {{"fail_on", 7}, {"sleep_ms", 1}, {"on", "cpu:*"}})
        .sink("record")
        .run({1, 6, {}});
    FAIL() << "expected StageError";
  } catch (const StageError& e) {
    EXPECT_EQ(e.stage(), "double");
    EXPECT_EQ(e.batch(), 7);
    const std::string message = e.what();
    EXPECT_NE(message.find("injected failure"), std::string::npos) << message;
    EXPECT_NE(message.find("on cpu:"), std::string::npos) << message;
  }
  EXPECT_TRUE(t.record.aborted);
  EXPECT_FALSE(t.record.finished);
}

// The error a failed run throws, caught as the caller sees it.
std::exception_ptr run_failing(TestRegistry& t, const std::string& fail_with, const std::string& on) {
  try {
    Pipeline(t.registry)
        .source("count", {{"series", 60}})
        .stage("double", {{"fail_on", 4}, {"fail_with", fail_with}, {"on", on}})
        .sink("record")
        .run({1, 4, {}});
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}

// What a StageError nests (the DeviceError on a CPU device, the original error inside it), with the
// original rethrown as its own type.
template <typename Original>
void expect_nesting(std::exception_ptr error, const std::string& device) {
  try {
    std::rethrow_exception(error);
  } catch (const StageError& stage) {
    EXPECT_EQ(stage.batch(), 4);
    try {
      std::rethrow_if_nested(stage);
      FAIL() << "the StageError nests nothing";
    } catch (const DeviceError& on) {
      EXPECT_EQ(on.device().substr(0, 4), device.substr(0, 4));
      try {
        std::rethrow_if_nested(on);
        FAIL() << "the DeviceError nests nothing";
      } catch (const Original&) {
      }
    }
  }
}

// Errors keep their type under the context they gain (element, batch, device), and bad input
// anywhere in the chain, a library's included, is told from a failure of the machine or the code.
TEST(Executor, ErrorsKeepTheirTypeUnderTheirContextAndTellBadInputApart) {
  const struct {
    std::string fail_with;
    bool input;
  } cases[] = {{"input", true}, {"json", true}, {"missing_file", true}, {"runtime", false}, {"disk_full", false}};
  for (const auto& c : cases) {
    TestRegistry t;
    const std::exception_ptr error = run_failing(t, c.fail_with, "cpu:0");
    ASSERT_TRUE(error) << c.fail_with;
    try {
      std::rethrow_exception(error);
    } catch (const StageError& e) {
      EXPECT_EQ(e.input_error(), c.input) << c.fail_with << ": " << e.what();
      EXPECT_EQ(caused_by_input(e), c.input) << c.fail_with;
      EXPECT_NE(std::string(e.what()).find("stage \"double\" failed on batch 4: on cpu:0: "), std::string::npos)
          << e.what();
    }
    EXPECT_TRUE(t.record.aborted);
  }
  TestRegistry t;
  expect_nesting<InputError>(run_failing(t, "input", "cpu:0"), "cpu:0");
  expect_nesting<json::parse_error>(run_failing(t, "json", "cpu:0"), "cpu:0");
  expect_nesting<std::filesystem::filesystem_error>(run_failing(t, "missing_file", "cpu:0"), "cpu:0");
  expect_nesting<std::runtime_error>(run_failing(t, "runtime", "cpu:*"), "cpu:");
}

// On the graph's own arena (no device named) the original error is nested in the StageError itself.
TEST(Executor, ErrorOffAnyDeviceNestsTheOriginalInTheStageError) {
  TestRegistry t;
  try {
    std::rethrow_exception(run_failing(t, "json", "cpu"));
  } catch (const StageError& e) {
    EXPECT_TRUE(e.input_error());
    EXPECT_THROW(std::rethrow_if_nested(e), json::parse_error);
  }
}

// A ring re-cuts batches: 40 series arrive in batches of 3 and leave in batches of 7, two slots at
// a time, and the sink sees every series once, in order, in the ring's batches.
TEST(Rings, RecutBatchesThroughFewSlotsWithoutLosingOrReorderingASeries) {
  TestRegistry t;
  const json report = Pipeline(t.registry)
                          .source("count")
                          .stage("double", {{"ring", 2}, {"batch", 7}, {"sleep_ms", 1}})
                          .sink("record")
                          .run({3, 4, {}}).to_json();
  ASSERT_EQ(t.record.batch_order.size(), 6u);  // ceil(40 / 7)
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(t.record.batch_order[i], static_cast<std::int64_t>(i));
  ASSERT_EQ(t.record.values.size(), 40u);
  for (std::size_t i = 0; i < 40; ++i) EXPECT_EQ(t.record.values[i], 2.0f * static_cast<float>(i));
  const json& ring = report["run"]["rings"].at(0);
  EXPECT_EQ(ring["name"], "count → double");
  EXPECT_EQ(ring["capacity"], 2);
  EXPECT_EQ(ring["batch_series"], 7);
  EXPECT_LE(ring["slots_high_water"].get<int>(), 2);  // bounded memory
  EXPECT_EQ(report["segments"].size(), 2u);
  EXPECT_EQ(report["segments"][1]["ring"]["tensors"], json::array({"signal"}));
  EXPECT_EQ(report["run"]["batches"], 14);  // the source's batches
}

// Stages on different devices meet through a ring, set up without being asked for.
TEST(Rings, AppearWhereConsecutiveStagesRunOnDifferentDevices) {
  TestRegistry t;
  t.registry.add({ElementKind::Stage, "copy", "", {}, {}, [](const Params&) {
                    struct Copy final : Stage {
                      void plan(PlanContext& ctx) override {
                        ctx.require("twice", "copy");
                        ctx.declare({"again", {1}, DType::Float32, true, ""});
                      }
                      void process(Batch& batch) override {
                        const auto in = batch.at("twice").values<float>();
                        auto out = batch.emplace("again", {1}, DType::Float32).values<float>();
                        std::copy(in.begin(), in.end(), out.begin());
                      }
                    };
                    return std::make_unique<Copy>();
                  }, {}});
  const json same = Pipeline(t.registry).source("count").stage("double").stage("copy").sink("record").validate().to_json();
  EXPECT_EQ(same["segments"].size(), 1u);
  const json report = Pipeline(t.registry)
                          .source("count")
                          .stage("double", {{"on", "cpu:0"}})
                          .stage("copy", {{"on", "cpu:" + std::to_string(cpu_device_count() - 1)}})
                          .sink("record")
                          .run({4, 4, {}}).to_json();
  if (cpu_device_count() > 1) {
    ASSERT_EQ(report["run"]["rings"].size(), 1u);
    EXPECT_EQ(report["run"]["rings"][0]["name"], "double → copy");
    EXPECT_EQ(report["segments"][1]["ring"]["tensors"], json::array({"twice"}));  // signal is no longer needed
  }
  ASSERT_EQ(t.record.values.size(), 40u);
  for (std::size_t i = 0; i < 40; ++i) EXPECT_EQ(t.record.values[i], 2.0f * static_cast<float>(i));
}

TEST(Rings, FullRingWithOverflowFailStopsTheRunNamingTheRing) {
  TestRegistry t;
  try {
    Pipeline(t.registry)
        .source("count")
        .stage("double", {{"ring", 1}, {"batch", 1}, {"overflow", "fail"}, {"sleep_ms", 20}})
        .sink("record")
        .run({1, 8, {}});
    FAIL() << "expected the full ring to fail the run";
  } catch (const StageError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("ring \"count → double\""), std::string::npos) << message;
    EXPECT_NE(message.find("overflow policy is fail"), std::string::npos) << message;
  }
  EXPECT_TRUE(t.record.aborted);
}

TEST(Rings, GrowPolicyLendsExtraSlotsAndKeepsTheResults) {
  TestRegistry t;
  const json report = Pipeline(t.registry)
                          .source("count")
                          .stage("double", {{"ring", 1}, {"batch", 1}, {"overflow", "grow"}, {"sleep_ms", 5}})
                          .sink("record")
                          .run({1, 8, {}}).to_json();
  ASSERT_EQ(t.record.values.size(), 40u);
  for (std::size_t i = 0; i < 40; ++i) EXPECT_EQ(t.record.values[i], 2.0f * static_cast<float>(i));
  EXPECT_GT(report["run"]["rings"][0]["grown_slots"].get<int>(), 0);
}

// A stage that fails while the ring before it is full (the producer waiting for a slot, upstream
// batches waiting for tokens) cancels the run with its own error: no deadlock, sinks aborted.
TEST(Rings, FailureWhileTheProducerWaitsForASlotCancelsCleanly) {
  TestRegistry t;
  try {
    Pipeline(t.registry)
        .source("count", {{"series", 200}})
        .stage("double", {{"ring", 1}, {"batch", 2}, {"fail_on", 5}, {"sleep_ms", 2}, {"on", "cpu:*"}})
        .sink("record")
        .run({1, 6, {}});
    FAIL() << "expected StageError";
  } catch (const StageError& e) {
    EXPECT_EQ(e.stage(), "double");
    EXPECT_EQ(e.batch(), 5);
    EXPECT_NE(std::string(e.what()).find("injected failure"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(t.record.aborted);
  EXPECT_FALSE(t.record.finished);
}

TEST(Rings, BadEdgeSettingsAreRejectedNamingTheParameter) {
  TestRegistry t;
  const auto message = [&](json params) {
    try {
      Pipeline(t.registry).source("count").stage("double", std::move(params)).sink("record").validate();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{"ring", 0}}).find("parameter \"ring\": must be at least 1"), std::string::npos)
      << message({{"ring", 0}});
  EXPECT_NE(message({{"batch", -3}}).find("parameter \"batch\""), std::string::npos);
  EXPECT_NE(message({{"overflow", "drop"}}).find("parameter \"overflow\": must be one of block, fail, grow, got \"drop\""), std::string::npos)
      << message({{"overflow", "drop"}});
}

TEST(Rings, GraphShowsEachRingWithItsCapacity) {
  TestRegistry t;
  const std::string dot =
      Pipeline(t.registry).source("count").stage("double", {{"ring", 3}, {"batch", 5}}).sink("record").graph();
  EXPECT_NE(dot.find("r1 [label=\"ring: 3 slots × 5 series"), std::string::npos) << dot;
  EXPECT_NE(dot.find("n0 -> r1 [label=\"signal\"]"), std::string::npos) << dot;  // the tensor crosses the ring
  EXPECT_NE(dot.find("r1 -> n1 [label=\"signal\"]"), std::string::npos) << dot;
}

}  // namespace
}  // namespace pacflow
