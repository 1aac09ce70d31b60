// Device backends behind one interface (engine/placement/device_backend.hpp): the built-in cpu, sim
// and cuda, and a kind of device defined here, in a test, that the engine places stages on, runs
// and reports without knowing it: parsing its lists, its node, its part of the report, its
// absence answered by the CPU fallback.
#include <atomic>
#include <gtest/gtest.h>
#include <oneapi/tbb/flow_graph.h>

#include "engine/api/errors.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/api/plan_report.hpp"
#include "engine/devices/cpu/cpu_backend.hpp"
#include "engine/devices/sim/sim_backend.hpp"
#include "engine/placement/backends.hpp"
#include "engine/placement/devices.hpp"
#include "engine/plan/built_pipeline.hpp"
#include "engine/run/device_run.hpp"
#include "engine/run/element_reporter.hpp"
#include "tests/engine/test_elements.hpp"

namespace pacflow {
namespace {

using testing::TestRegistry;

// "twin:0" … "twin:2": host devices whose node runs the stage's own code on the graph's workers,
// one batch per device at a time, and counts the batches it ran. `none` makes it absent. Its devices
// belong to the node, as GPUs do (`twin:*` is a rank's share of them).
class TwinBackend final : public DeviceBackend {
 public:
  explicit TwinBackend(std::string none = {}) : none_(std::move(none)) {}
  std::string_view kind() const override { return "twin"; }
  Residency residency() const override { return Residency::Host; }
  BareKind bare() const override { return BareKind::Refused; }
  int count() const override { return 3; }
  int star_count() const override { return star; }
  bool node_shared() const override { return true; }
  std::string why_none() const override { return none_; }
  std::string available() const override { return none_.empty() ? "twin:0 to twin:2" : ""; }
  std::vector<std::string> listing() const override { return {"twin:0-2 test devices"}; }
  std::unique_ptr<detail::DeviceRun> start(const detail::RunStart&) const override {
    return std::make_unique<Run>(batches);
  }
  mutable std::atomic<int> batches{0};
  int star = 2;  // twin:* is twin:0 … twin:(star - 1)

 private:
  class Run final : public detail::DeviceRun {
   public:
    explicit Run(std::atomic<int>& batches) : batches_(batches) {}
    detail::StageNode make_node(oneapi::tbb::flow::graph& graph, const detail::BuiltStage& stage,
                                const detail::BuiltStage*, const detail::ElementReporter& reporter) override {
      using Node = oneapi::tbb::flow::function_node<detail::BatchPtr, detail::BatchPtr>;
      return detail::StageNode(std::make_unique<Node>(
          graph, stage.devices.size(), [&stage, reporter, this](detail::BatchPtr batch) {
            const auto start = detail::Clock::now();
            detail::guarded("stage", stage.name, batch->index, [&] { stage.stage->process(*batch); });
            for (const auto& name : stage.drop_after) batch->tensors.erase(name);
            ++batches_;
            ++ran_;
            reporter.worked("twin", *batch, start);
            return batch;
          }));
    }
    json report() const override { return {{"twin_batches", ran_.load()}}; }

   private:
    std::atomic<int>& batches_;
    std::atomic<int> ran_{0};
  };
  std::string none_;
};

// cpu, sim and a twin backend (present, or absent for `none`).
struct WithTwin {
  explicit WithTwin(std::string none = {}) {
    backends.add(std::make_unique<CpuBackend>());
    backends.add(std::make_unique<SimBackend>());
    auto made = std::make_unique<TwinBackend>(std::move(none));
    twin = made.get();
    backends.add(std::move(made));
  }
  DeviceBackends backends;
  TwinBackend* twin = nullptr;
};

TEST(DeviceBackends, TheBuiltInKindsAreCpuSimAndCudaAndTheDefaultIsTheWholeMachine) {
  EXPECT_EQ(builtin_device_backends().kinds(), "cpu, sim, cuda");
  EXPECT_EQ(DeviceRef{}.name(), "cpu");
  EXPECT_EQ(DeviceRef{}.backend, &cpu_backend());
  EXPECT_EQ(cpu_backend().residency(), Residency::Host);
  EXPECT_EQ(builtin_device_backends().find("sim")->residency(), Residency::Modelled);
  EXPECT_EQ(builtin_device_backends().find("cuda")->residency(), Residency::Device);
  EXPECT_EQ(builtin_device_backends().find("rocm"), nullptr);
  EXPECT_EQ(device_list_name(parse_devices("sim:1-3")), "sim:1,2,3");
  EXPECT_EQ(parse_devices("cpu").front(), DeviceRef{});
}

// A rank of several on a node: `kind:*` of a kind the node's processes share names the rank's share
// of its devices (local rank mod devices; with fewer ranks than devices, every local_size-th from the
// local rank); lists of indices and devices each process has of its own (sim) are as written.
TEST(DeviceBackends, ARankOfSeveralOnANodeGetsItsShareOfTheNodesDevices) {
  WithTwin t;
  const auto star = [&](int local_rank, int local_size) {
    return device_list_name(parse_devices("twin:*", "on", t.backends, {local_rank, local_size}));
  };
  EXPECT_EQ(star(0, 1), "twin:0,1");
  EXPECT_EQ(star(0, 2), "twin:0");
  EXPECT_EQ(star(1, 2), "twin:1");
  EXPECT_EQ(star(2, 4), "twin:0");
  EXPECT_EQ(star(3, 4), "twin:1");
  t.twin->star = 3;
  EXPECT_EQ(star(0, 2), "twin:0,2");
  EXPECT_EQ(star(1, 2), "twin:1");
  EXPECT_EQ(device_list_name(parse_devices("twin:2", "on", t.backends, {1, 2})), "twin:2");
  EXPECT_EQ(parse_devices("sim:*", "on", t.backends, {1, 2}).size(), 8u);
}

TEST(DeviceBackends, AKindRegisteredTwiceIsRefused) {
  WithTwin t;
  EXPECT_THROW(t.backends.add(std::make_unique<TwinBackend>()), std::logic_error);
}

TEST(DeviceBackends, ANewKindsListsAreReadByItsOwnCounts) {
  WithTwin t;
  EXPECT_EQ(t.backends.kinds(), "cpu, sim, twin");
  EXPECT_EQ(device_list_name(parse_devices("twin:*", "on", t.backends)), "twin:0,1");
  EXPECT_EQ(device_list_name(parse_devices("twin:0,2", "on", t.backends)), "twin:0,2");
  EXPECT_EQ(parse_devices("twin:2", "on", t.backends).front().backend, t.twin);
  try {
    parse_devices("twin:3", "on", t.backends);
    FAIL() << "twin:3 does not exist";
  } catch (const ParamError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("twin:3 does not exist on this machine"), std::string::npos) << message;
    EXPECT_NE(message.find("(sim, twin: likewise)"), std::string::npos) << message;
    EXPECT_NE(message.find("twin:0 to twin:2"), std::string::npos) << message;
  }
  EXPECT_THROW(parse_devices("twin", "on", t.backends), ParamError);     // an index is needed
  EXPECT_THROW(parse_devices("cuda:0", "on", t.backends), ParamError);   // not a kind of this set
  EXPECT_THROW(parse_devices("twin:1", "on"), ParamError);               // not a built-in kind
}

TEST(DeviceBackends, AStageOnANewKindRunsThroughItsNodeWithTheCpusNumbers) {
  TestRegistry cpu_run;
  Pipeline(cpu_run.registry).source("count").stage("double").sink("record").run({7, 3, {}});

  WithTwin t;
  TestRegistry twin_run;
  Pipeline pipeline(twin_run.registry);
  pipeline.source("count").stage("double", {{"on", "twin:0,1"}}).sink("record").device_backends(t.backends);
  const json plan = pipeline.validate().to_json();
  EXPECT_EQ(plan["devices"], json::parse(R"(["twin:0", "twin:1"])")) << plan["devices"];
  const json report = pipeline.run({7, 3, {}}).to_json();
  EXPECT_EQ(twin_run.record.values, cpu_run.record.values);
  EXPECT_EQ(t.twin->batches.load(), 6);  // 40 series in batches of 7
  EXPECT_EQ(report["run"]["twin_batches"], 6) << report["run"];
  EXPECT_FALSE(report["run"].contains("threads_per_cpu_device"));  // no stage on the CPU backend
  EXPECT_EQ(report["pipeline"][1]["params"]["on"], "twin:0,1");
}

TEST(DeviceBackends, AnAbsentKindIsRefusedOrFallsBackToTheCpuSayingWhy) {
  WithTwin t("no twin attached");
  TestRegistry r;
  Pipeline refused(r.registry);
  refused.source("count").stage("double", {{"on", "twin:0"}}).sink("record").device_backends(t.backends);
  try {
    refused.validate();
    FAIL() << "no twin here";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("twin:0 asks for a twin device, but none is visible: no twin attached"), std::string::npos)
        << message;
    EXPECT_NE(message.find("add fallback=cpu"), std::string::npos) << message;
  }
  Pipeline fell_back(r.registry);
  fell_back.source("count").stage("double", {{"on", "twin:0"}, {"fallback", "cpu"}}).sink("record");
  fell_back.device_backends(t.backends);
  const json report = fell_back.run({7, 3, {}}).to_json();
  EXPECT_EQ(report["pipeline"][1]["params"]["on"], "cpu");
  EXPECT_NE(report["warnings"].dump().find("no twin attached"), std::string::npos) << report["warnings"];
  EXPECT_EQ(t.twin->batches.load(), 0);
  EXPECT_EQ(r.record.values.size(), 40u);
}

}  // namespace
}  // namespace pacflow
