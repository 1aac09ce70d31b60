// How soon a run stops once asked to (RunOptions::stop: the CLI's SIGINT and SIGTERM): the batches
// in flight are not awaited to their end; a stage whose work on one batch is long checks the stop
// itself (Batch::stop). Here the surrogates of one series: a million shifts at 1024 bins once kept a
// run deaf to SIGTERM for as long as they took (issue 16).
#include <atomic>
#include <chrono>
#include <future>
#include <gtest/gtest.h>
#include <thread>

#include "engine/api/pipeline.hpp"
#include "stages/builtin.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/folder_state.hpp"  // kSanitizerSlowdown

namespace pacflow {
namespace {

using Clock = std::chrono::steady_clock;

// A stage that reads and writes nothing and tells `reached` when a batch gets to it: placed just
// before surrogates, it says when that stage's long loop is about to begin.
void add_probe(Registry& registry, std::shared_ptr<std::atomic<bool>> reached) {
  registry.add({ElementKind::Stage, "probe", "", {}, {}, [reached](const Params&) {
                  struct Probe final : Stage {
                    std::shared_ptr<std::atomic<bool>> reached;
                    void plan(PlanContext&) override {}
                    void process(Batch&) override { reached->store(true); }
                  };
                  auto probe = std::make_unique<Probe>();
                  probe->reached = reached;
                  return probe;
                }, {}});
}

TEST(StopLatency, RunOfAMillionSurrogatesStopsWithinASecondOfTheRequest) {
  const testing::ScratchDir dir("stop_latency");
  Registry registry = stages::builtin_registry();
  const auto reached = std::make_shared<std::atomic<bool>>(false);
  add_probe(registry, reached);
  std::stop_source stop;
  RunOptions options;
  options.stop = stop.get_token();
  // One series, one cell: the surrogates' own values (8 MB) are the only large allocation, and the
  // million shifts take several seconds on one core, so a run deaf to the stop outlasts the bound.
  auto run = std::async(std::launch::async, [&] {
    Pipeline(registry)
        .source("synthetic", {{"epochs", 1}, {"channels", 1}, {"n_times", 4096}})
        .stage("bandpass", {{"pha", json::parse("[[4,8]]")}, {"amp", json::parse("[[60,80]]")}})
        .stage("hilbert")
        .stage("mi", {{"bins", 1024}})
        .stage("probe")
        .stage("surrogates", {{"n", 1000000}})
        .sink("npy", {{"dir", (dir / "out").string()}})
        .run(options);
  });
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(60);
  while (!reached->load() && Clock::now() < deadline &&
         run.wait_for(std::chrono::milliseconds(5)) == std::future_status::timeout) {
  }
  ASSERT_TRUE(reached->load()) << "the batch never reached the surrogates stage";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // well inside the surrogates' loop
  ASSERT_EQ(run.wait_for(std::chrono::seconds(0)), std::future_status::timeout)
      << "the run ended before the stop request; it must take longer for this test to mean anything";
  const Clock::time_point asked = Clock::now();
  stop.request_stop();
  // A second, or ten under a sanitizer (every loop is several times slower, the bound scales alike).
  const auto bound = std::chrono::seconds(testing::kSanitizerSlowdown);
  const bool stopped = run.wait_for(bound) == std::future_status::ready;
  const double seconds = std::chrono::duration<double>(Clock::now() - asked).count();
  EXPECT_TRUE(stopped) << "still running " << bound.count() << " s after the stop request";
  EXPECT_THROW(run.get(), RunCancelled);  // waits for the end if it did not stop in time
  if (!stopped)
    ADD_FAILURE() << "the run took " << std::chrono::duration<double>(Clock::now() - asked).count()
                  << " s to stop";
  else
    EXPECT_LT(seconds, static_cast<double>(bound.count()));
  EXPECT_FALSE(std::filesystem::exists(dir / "out" / "pac_z.npy"));
}

}  // namespace
}  // namespace pacflow
