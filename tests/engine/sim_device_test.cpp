// The modelled accelerator: its timelines, its due-time delivery, and runs through the executor.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <vector>

#include "bench/model_elements.hpp"
#include "engine/api/errors.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/devices/sim/sim_device.hpp"
#include "engine/devices/sim/sim_model_file.hpp"

namespace pacflow {
namespace {

using SimClock = SimDevices::Clock;
using std::chrono::duration;

double ms_between(SimClock::time_point a, SimClock::time_point b) { return duration<double, std::milli>(b - a).count(); }

TEST(SimDevices, CopiesOverlapComputeAndComputeIsSerialOnOneDevice) {
  SimModel model;
  model.flops_per_s = 1e9;  // 1 ms per 10^6 flops
  model.host_to_device_bytes_per_s = 1e6;  // 1 ms per kB
  model.device_to_host_bytes_per_s = 1e6;
  model.launch_s = 0;
  SimDevices sim(model);
  const SimWork work{1e6, 0, 1000, 1000};  // 1 ms in, 1 ms compute, 1 ms out
  const auto t0 = SimClock::now();
  const auto a = sim.book({0}, work, t0);
  const auto b = sim.book({0}, work, t0);
  EXPECT_NEAR(ms_between(t0, a.compute_start), 1.0, 1e-6);
  EXPECT_NEAR(ms_between(t0, a.done), 3.0, 1e-6);
  // The second batch's copy-in runs during the first one's compute, its compute right after.
  EXPECT_NEAR(ms_between(t0, b.copy_in_start), 1.0, 1e-6);
  EXPECT_NEAR(ms_between(t0, b.compute_start), 2.0, 1e-6);
  EXPECT_NEAR(ms_between(t0, b.done), 4.0, 1e-6);
}

// A stage's measured rate (SimModel::stage_flops_per_s, carried by its work) replaces the peak.
TEST(SimDevices, AStagesOwnRateReplacesThePeak) {
  SimModel model;
  model.flops_per_s = 1e9;
  model.launch_s = 0;
  SimDevices sim(model);
  SimWork work{1e6, 0, 0, 0};
  work.flops_per_s = 1e8;  // ten times slower than the model's peak: 10 ms
  const auto t0 = SimClock::now();
  const auto b = sim.book({0}, work, t0);
  EXPECT_NEAR(ms_between(b.compute_start, b.compute_end), 10.0, 1e-6);
}

// A model from a file: its figures and stage rates, every malformed entry refused naming the key;
// the calibrated H100 model in bench/sim_models reads.
TEST(SimModelFile, ReadsFiguresAndStageRatesAndRefusesWhatIsNotAFigure) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "pacflow_sim_model_test.json";
  const auto read = [&](const std::string& text) {
    std::ofstream(file) << text;
    return read_sim_model(file);
  };
  const SimModel m = read(R"({"name": "slow", "flops_per_s": 2e12, "launch_s": 0, "source": "a note",
                              "stage_flops_per_s": {"surrogates": 5e11}})");
  EXPECT_EQ(m.name, "slow");
  EXPECT_EQ(m.flops_per_s, 2e12);
  EXPECT_EQ(m.launch_s, 0);
  EXPECT_EQ(m.memory_bytes_per_s, SimModel{}.memory_bytes_per_s);
  EXPECT_EQ(m.stage_flops_per_s.at("surrogates"), 5e11);
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {R"({"flops_per_s": -1})", "flops_per_s: expected a positive number, got -1"},
           {R"({"flops": 1e12})", "flops: not a figure of the model"},
           {R"({"stage_flops_per_s": {"mi": 0}})", "stage_flops_per_s.mi: expected a positive number"},
           {R"([1, 2])", "expected a JSON object"},
           {"{", "not JSON"}}) {
    try {
      read(text);
      ADD_FAILURE() << text << " was read";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  std::filesystem::remove(file);
  const SimModel h100 = read_sim_model(std::filesystem::path(PACFLOW_SOURCE_DIR) / "bench/sim_models/h100_measured.json");
  EXPECT_EQ(h100.stage_flops_per_s.size(), 4u);
}

TEST(SimDevices, BooksTheReplicaThatFinishesFirst) {
  SimModel model;
  model.flops_per_s = 1e9;
  model.launch_s = 0;
  SimDevices sim(model);
  const SimWork work{1e6, 0, 0, 0};
  const auto t0 = SimClock::now();
  std::vector<int> used;
  for (int i = 0; i < 6; ++i) used.push_back(sim.book({0, 1, 2}, work, t0).device);
  EXPECT_EQ(used, (std::vector<int>{0, 1, 2, 0, 1, 2}));
}

// Inputs come from the host over PCIe, from another device over the peer link, or not at all when
// they are already there; outputs the next modelled stage reads stay on the device.
TEST(SimDevices, CopiesComeFromWhereTheDataIs) {
  SimModel model;
  model.flops_per_s = 1e9;
  model.host_to_device_bytes_per_s = 1e6;  // 1 ms per kB
  model.device_to_host_bytes_per_s = 1e6;
  model.peer_bytes_per_s = 4e6;  // 0.25 ms per kB
  model.launch_s = 0;
  const auto t0 = SimClock::now();
  const auto booked = [&](int from, bool keep) {
    SimDevices sim(model);
    SimWork work{1e6, 0, 1000, 1000};
    work.from_device = from;
    work.keep_on_device = keep;
    return sim.book({2}, work, t0);
  };
  EXPECT_NEAR(ms_between(t0, booked(-1, false).compute_start), 1.0, 1e-6);  // host to device
  EXPECT_NEAR(ms_between(t0, booked(0, false).compute_start), 0.25, 1e-6);  // peer to peer
  EXPECT_NEAR(ms_between(t0, booked(2, false).compute_start), 0.0, 1e-6);   // already there
  EXPECT_NEAR(ms_between(t0, booked(2, false).done), 2.0, 1e-6);            // copied back to the host
  EXPECT_NEAR(ms_between(t0, booked(2, true).done), 1.0, 1e-6);             // kept for the next stage
}

// Data on a device draws the batch there: with equal queues, the replica that holds it wins.
TEST(SimDevices, PrefersTheReplicaThatAlreadyHoldsTheInputs) {
  SimModel model;
  model.flops_per_s = 1e9;
  model.launch_s = 0;
  SimDevices sim(model);
  SimWork work{1e6, 0, 1e6, 0};
  work.from_device = 1;
  EXPECT_EQ(sim.book({0, 1, 2}, work, SimClock::now()).device, 1);
}

TEST(DueTimeQueue, RunsActionsInDueOrderNotSubmissionOrder) {
  std::vector<int> order;
  std::mutex m;
  {
    DueTimeQueue queue;
    const auto now = SimClock::now();
    for (int i : {3, 1, 2, 0})
      queue.push(now + std::chrono::milliseconds(5 * i), [&, i] {
        const std::lock_guard lock(m);
        order.push_back(i);
      });
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
}

TEST(SimExecutor, DeliversEveryBatchAndSaysItsOutputsAreStandIns) {
  const Registry registry = bench::model_registry();
  const json report = Pipeline(registry)
                          .source("zeros", {{"series", 20}})
                          .stage("work", {{"flops", 1e9}, {"on", "sim:0-2"}})
                          .sink("discard")
                          .run({3, 0, {}}).to_json();
  EXPECT_EQ(report["run"]["batches"], 7);
  EXPECT_EQ(report["run"]["stages"][1]["batches"], 7);  // the modelled stage
  EXPECT_EQ(report["run"]["stages"][2]["batches"], 7);  // the sink got every batch
  EXPECT_EQ(report["pipeline"][1]["device"], "sim:0,1,2");
  ASSERT_FALSE(report["warnings"].empty());
  EXPECT_NE(report["warnings"].back().get<std::string>().find("did no arithmetic"), std::string::npos);
}

// 32 batches of 5 ms modelled compute: 160 ms on one device, 20 ms on eight. A loose bound, so a
// slow or instrumented build passes; bench/engine_bench measures the real efficiency.
TEST(SimExecutor, ReplicasScaleThroughput) {
  const Registry registry = bench::model_registry();
  const auto seconds_on = [&](const std::string& devices) {
    const Pipeline p = Pipeline(registry)
                           .source("zeros", {{"series", 32}})
                           .stage("work", {{"flops", 5e-3 * SimModel{}.flops_per_s}, {"on", devices}})
                           .sink("discard");
    const auto start = SimClock::now();
    p.run({1, 0, {}});
    return duration<double>(SimClock::now() - start).count();
  };
  const double one = seconds_on("sim:0");
  const double eight = seconds_on("sim:0-7");
  EXPECT_GT(one, 0.15);
  EXPECT_GT(one / eight, 4.0) << "one device " << one << " s, eight " << eight << " s";
}

TEST(SimExecutor, FailureAfterAModelledStageCancelsWithoutHanging) {
  Registry registry = bench::model_registry();
  struct Failing final : Stage {
    void plan(PlanContext& ctx) override { ctx.require("out", "fail"); }
    void process(Batch& batch) override {
      if (batch.index == 4) throw std::runtime_error("injected failure");
    }
  };
  registry.add({ElementKind::Stage, "fail", "", {}, {}, [](const Params&) { return std::make_unique<Failing>(); }, {}});
  try {
    Pipeline(registry)
        .source("zeros", {{"series", 64}})
        .stage("work", {{"flops", 1e-3 * SimModel{}.flops_per_s}, {"on", "sim:*"}})
        .stage("fail")
        .sink("discard")
        .run({1, 0, {}});
    FAIL() << "expected StageError";
  } catch (const StageError& e) {
    EXPECT_EQ(e.stage(), "fail");
    EXPECT_EQ(e.batch(), 4);
  }
}

}  // namespace
}  // namespace pacflow
