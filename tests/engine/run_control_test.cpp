// Stopping, resuming and bounding a run: cancellation through RunOptions::stop, checkpoints that a
// later run resumes from with identical results, the memory estimate and its limit, and results of
// series a source excluded.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <stop_token>
#include <thread>

#include "engine/run/checkpoint.hpp"
#include "engine/api/errors.hpp"
#include "engine/run/excluded_rows.hpp"
#include "engine/io/npy.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/api/plan_report.hpp"
#include "tests/engine/test_elements.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow {
namespace {

using testing::ScratchDir;
using testing::TestRegistry;
namespace fs = std::filesystem;

std::vector<fs::path> control_files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) out.push_back(e.path());
  return out;
}

TEST(RunControl, StopRequestCancelsTheRunAbortsSinksAndThrowsRunCancelled) {
  TestRegistry t;
  std::stop_source stop;
  RunOptions options{1, 2, [&](const Progress& p) {
                       if (p.batches_done == 3) stop.request_stop();
                     }};
  options.stop = stop.get_token();
  const auto start = std::chrono::steady_clock::now();
  try {
    Pipeline(t.registry).source("count", {{"series", 400}}).stage("double", {{"sleep_ms", 5}}).sink("record").run(options);
    FAIL() << "expected RunCancelled";
  } catch (const RunCancelled& e) {
    EXPECT_GE(e.batches_delivered(), 3);
    EXPECT_LT(e.batches_delivered(), 400);
  }
  // 400 batches of up to 10 ms would take seconds; the stop leaves only the batches in flight to finish.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_TRUE(t.record.aborted);
  EXPECT_FALSE(t.record.finished);
}

TEST(RunControl, StopRequestedBeforeTheRunStartsRunsNothing) {
  TestRegistry t;
  std::stop_source stop;
  stop.request_stop();
  RunOptions options;
  options.stop = stop.get_token();
  EXPECT_THROW(Pipeline(t.registry).source("count").stage("double").sink("record").run(options), RunCancelled);
  EXPECT_TRUE(t.record.batch_order.empty());
}

// A checkpointed run stopped after a few batches, resumed with another batch size: the npy output is
// the uninterrupted run's, bit for bit, and the checkpoint is gone once the outputs are committed.
// With a ring before the stage too: the resumed run's rings start at the first series not recorded.
struct ResumeCase {
  const char* name;
  json stage;                  // the double stage's parameters
  std::int64_t sink_batch;     // series per batch reaching the sink, when the first run has batches of 4
  friend std::ostream& operator<<(std::ostream& out, const ResumeCase& c) { return out << c.name; }
};

class Resume : public ::testing::TestWithParam<ResumeCase> {};

TEST_P(Resume, CheckpointGivesTheUninterruptedRunsBytesForAnyBatchSize) {
  const ResumeCase c = GetParam();
  const ScratchDir dir("run_control");
  const auto pipeline = [&c](TestRegistry& t, const fs::path& out) {
    return Pipeline(t.registry).source("count", {{"series", 60}}).stage("double", c.stage).sink("npy", {{"dir", out.string()}});
  };
  TestRegistry reference_registry;
  pipeline(reference_registry, dir / "reference").run({7, 3, {}});

  TestRegistry first;
  std::stop_source stop;
  RunOptions stopped{4, 2, [&](const Progress& p) {
                       if (p.batches_done == 3) stop.request_stop();
                     }};
  stopped.stop = stop.get_token();
  stopped.checkpoint = dir / "checkpoint";
  EXPECT_THROW(pipeline(first, dir / "resumed").run(stopped), RunCancelled);
  EXPECT_FALSE(fs::exists(dir / "resumed" / "twice.npy"));
  const json manifest = json::parse(testing::read_file(dir / "checkpoint" / "checkpoint.json"));
  const auto done = manifest.at("series_done").get<std::int64_t>();
  EXPECT_GE(done, 3 * c.sink_batch);
  EXPECT_LT(done, 60);
  EXPECT_EQ(done % c.sink_batch, 0);

  TestRegistry second;
  RunOptions resumed{5, 3, {}};
  resumed.checkpoint = dir / "checkpoint";
  const json report = pipeline(second, dir / "resumed").run(resumed).to_json();
  EXPECT_EQ(report["run"]["checkpoint"]["resumed_at_series"], done);
  EXPECT_EQ(report["run"]["batches"], (60 - done + 4) / 5);
  EXPECT_EQ(report["segments"][0]["batches"], report["run"]["batches"]) << "the plan reports the run's own batches";
  EXPECT_EQ(testing::read_file(dir / "resumed" / "twice.npy"), testing::read_file(dir / "reference" / "twice.npy"));
  EXPECT_FALSE(fs::exists(dir / "checkpoint")) << "the checkpoint is removed once the outputs are committed";
  for (const auto& f : control_files_in(dir / "resumed"))
    EXPECT_NE(f.filename().string().front(), '.') << "temporary left behind: " << f;
}

INSTANTIATE_TEST_SUITE_P(RunControl, Resume,
                         ::testing::Values(ResumeCase{"NoRing", {{"sleep_ms", 1}}, 4},
                                           ResumeCase{"ThroughARing", {{"sleep_ms", 1}, {"ring", 2}, {"batch", 3}}, 3}),
                         [](const auto& test) { return std::string(test.param.name); });

TEST(RunControl, CheckpointOfAnotherPipelineIsRefusedNamingTheDifference) {
  const ScratchDir dir("run_control");
  TestRegistry first;
  std::stop_source stop;
  RunOptions stopped{2, 2, [&](const Progress&) { stop.request_stop(); }};
  stopped.stop = stop.get_token();
  stopped.checkpoint = dir / "checkpoint";
  EXPECT_THROW(Pipeline(first.registry).source("count").stage("double").sink("npy", {{"dir", (dir / "out").string()}}).run(stopped),
               RunCancelled);
  TestRegistry second;
  RunOptions resumed;
  resumed.checkpoint = dir / "checkpoint";
  try {
    Pipeline(second.registry).source("count").stage("double", {{"sleep_ms", 1}}).sink("npy", {{"dir", (dir / "out").string()}}).run(resumed);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("made by another pipeline or input"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/pipeline/1/params/sleep_ms: 0 in the checkpoint, 1 now"), std::string::npos)
        << e.what();
  }
}

TEST(RunControl, CheckpointIsRefusedUpFrontWhenASinkCannotResume) {
  const ScratchDir dir("run_control");
  TestRegistry t;
  RunOptions options;
  options.checkpoint = dir / "checkpoint";
  try {
    Pipeline(t.registry).source("count").stage("double").sink("record").run(options);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sink \"record\" cannot keep its partial output in a checkpoint"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(t.record.batch_order.empty());
}

TEST(RunControl, CheckpointInUseByAnotherRunIsRefused) {
  const ScratchDir dir("run_control");
  const Checkpoint holder(dir / "checkpoint", json::object(), 10, {"npy"});
  EXPECT_THROW(Checkpoint(dir / "checkpoint", json::object(), 10, {"npy"}), InputError);
}

TEST(RunControl, DamagedCheckpointIsRefusedAndReleasesTheFolder) {
  const ScratchDir dir("run_control");
  std::filesystem::create_directories(dir / "checkpoint");
  dir.write("checkpoint/checkpoint.json", "{\"pacflow_checkpoint\": 1, \"plan\": {}, \"series_done\": \"many\"}");
  try {
    Checkpoint(dir / "checkpoint", json::object(), 10, {"npy"});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("checkpoint.json: not a pacflow checkpoint of format 2"), std::string::npos)
        << e.what();
  }
  std::filesystem::remove(dir / "checkpoint" / "checkpoint.json");
  EXPECT_NO_THROW(Checkpoint(dir / "checkpoint", json::object(), 10, {"npy"})) << "the refused open kept the lock";
}

// The estimate counts, per segment, the batches alive × series per batch × the tensor bytes alive
// per series, plus the batch the source has ready: here 8 float samples (32 B) and one float result
// (4 B) per series, batches of 3 series, 4 in flight.
TEST(RunControl, MemoryEstimateCountsBatchesInFlightTimesTheirTensors) {
  TestRegistry t;
  const json plan = Pipeline(t.registry).source("count").stage("double").sink("record").validate({3, 4, {}}).to_json();
  EXPECT_EQ(plan["host_memory_estimate"]["bytes"].get<double>(), 4 * 3 * (32 + 4) + 3 * 32);
  const json more = Pipeline(t.registry).source("count").stage("double").sink("record").validate({3, 8, {}}).to_json();
  EXPECT_EQ(more["host_memory_estimate"]["bytes"].get<double>(), 8 * 3 * (32 + 4) + 3 * 32);
}

TEST(RunControl, RunAboveTheMemoryLimitIsRefusedBeforeItStartsWithTheNumbers) {
  TestRegistry t;
  RunOptions options{3, 4, {}};
  options.max_memory = MemoryBudget{500, 0};
  try {
    Pipeline(t.registry).source("count").stage("double").sink("record").run(options);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("needs an estimated 0.5 KiB"), std::string::npos) << what;  // 528 bytes
    EXPECT_NE(what.find("up to 4 batches × 3 series"), std::string::npos) << what;
    EXPECT_NE(what.find("more than the memory limit of 0.5 KiB"), std::string::npos) << what;
  }
  EXPECT_TRUE(t.record.batch_order.empty());
  options.max_memory = MemoryBudget{528, 0};
  EXPECT_NO_THROW(Pipeline(t.registry).source("count").stage("double").sink("record").run(options));
}

// A per-series result and one with 2 rows per group of 3 series; series 4 and 7 excluded.
TEST(RunControl, ExcludedSeriesTurnTheirRowsAndTheirGroupsRowsToNan) {
  Batch batch;
  batch.first_series = 3;
  batch.series_count = 6;  // series 3..8: groups 1 and 2
  batch.emplace("own", {2}, DType::Float32);
  batch.emplace_rows("grouped", 4, {1}, DType::Float64);
  const std::vector<TensorDecl> results = {{"own", {2}, DType::Float32, true, "", {}},
                                           {"grouped", {1}, DType::Float64, true, "", RowLayout{3, 2, {}, {}}}};
  detail::mask_excluded_rows(batch, results, {0, 4, 9});
  const auto own = batch.at("own").values<float>();
  for (std::int64_t row = 0; row < 6; ++row)
    for (std::int64_t k = 0; k < 2; ++k)
      EXPECT_EQ(std::isnan(own[static_cast<std::size_t>(row * 2 + k)]), row == 1) << "row " << row;  // series 4
  const auto grouped = batch.at("grouped").values<double>();
  for (std::size_t row = 0; row < 4; ++row) EXPECT_EQ(std::isnan(grouped[row]), row < 2) << "row " << row;  // group 1
}

}  // namespace
}  // namespace pacflow
