// pipeline_cli when things go wrong around it: signals, kills, a memory limit, a full disk. Whatever
// happens, every output file is complete or absent, and files of an earlier run stay as they were.
#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/support/cli_process.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/folder_state.hpp"

namespace pacflow {
namespace {

using testing::CliProcess;
using testing::eventually;
using testing::folder_contents;
using testing::has_temporary;
using testing::run_cli;
using testing::ScratchDir;
using testing::series_recorded;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

using testing::kSanitizerSlowdown;

// Coupled synthetic data through the whole chain into npy and png sinks: `epochs` × 16 series.
std::string pac_pipe(int epochs) {
  return "source synthetic epochs=" + std::to_string(epochs) +
         " channels=16 n_times=2048 chi=0.8 seed=5\n"
         "stage bandpass pha=2:20:10 amp=60:160:10\n"
         "stage hilbert\n"
         "stage mi\n"
         "stage surrogates n=200 seed=7 trial_block=2\n"  // batches of whole blocks: 32 series
         "sink npy dir=out\n"
         "sink png path=out/comodulogram.png\n";
}

struct SignalCase {
  int signal;
  int exit_code;
  const char* name;
  friend std::ostream& operator<<(std::ostream& out, const SignalCase& c) { return out << c.name; }
};

class CliSignal : public ::testing::TestWithParam<SignalCase> {};

TEST_P(CliSignal, StopsWithinASecondWithItsExitCodeLeavingEarlierOutputsAsTheyWere) {
  const SignalCase c = GetParam();
  const ScratchDir dir("cli_signal");
  dir.write("small.pipe", pac_pipe(1));
  dir.write("long.pipe", pac_pipe(400));
  ASSERT_EQ(run_cli("run small.pipe -q", dir.path()).exit_code, 0);
  const auto before = folder_contents(dir / "out");
  ASSERT_TRUE(before.count("pac_z.npy") && before.count("comodulogram.png"));

  CliProcess cli({"run", "long.pipe", "--batch", "1"}, dir.path());
  // Batches are moving once the npy sink has opened its temporaries.
  ASSERT_TRUE(eventually([&] { return has_temporary(dir / "out"); }, 60s * kSanitizerSlowdown)) << cli.err_so_far();
  const auto sent = std::chrono::steady_clock::now();
  cli.send(c.signal);
  const auto result = cli.wait_for(1s * kSanitizerSlowdown);
  ASSERT_TRUE(result) << c.name << " did not stop the run within " << kSanitizerSlowdown << " s";
  EXPECT_LT(std::chrono::steady_clock::now() - sent, 1s * kSanitizerSlowdown);
  EXPECT_EQ(result->exit_code, c.exit_code) << result->err;
  EXPECT_NE(result->err.find(std::string("interrupted by ") + c.name), std::string::npos) << result->err;
  EXPECT_NE(result->err.find("no output written"), std::string::npos) << result->err;
  EXPECT_EQ(folder_contents(dir / "out"), before) << "outputs of the earlier run changed, or temporaries were left";
}

INSTANTIATE_TEST_SUITE_P(Signals, CliSignal,
                         ::testing::Values(SignalCase{SIGINT, 130, "SIGINT"}, SignalCase{SIGTERM, 143, "SIGTERM"}),
                         [](const auto& test) { return std::string(test.param.name); });

// Killed outright (SIGKILL: no chance to clean up), resumed, interrupted again (SIGINT), resumed
// again: the outputs are the bytes of an uninterrupted run, and the checkpoint is gone at the end.
TEST(CliCheckpoint, KilledAndInterruptedRunResumesToTheUninterruptedRunsBytes) {
  const ScratchDir dir("cli_checkpoint");
  dir.write("p.pipe", pac_pipe(16));
  const auto reference = run_cli("run p.pipe -q --out reference", dir.path());
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  const std::vector<std::string> args{"run", "p.pipe", "-q", "--out", "out", "--batch", "2", "--checkpoint", "ck"};

  std::int64_t killed_at = 0;
  {
    CliProcess cli(args, dir.path());
    ASSERT_TRUE(eventually([&] { return series_recorded(dir / "ck") > 0; }, 60s * kSanitizerSlowdown)) << cli.err_so_far();
    cli.send(SIGKILL);
    ASSERT_TRUE(cli.wait_for(10s));
    EXPECT_EQ(cli.killed_by(), SIGKILL);
    killed_at = series_recorded(dir / "ck");
  }
  ASSERT_GT(killed_at, 0);
  ASSERT_LT(killed_at, 256) << "the run ended before the kill";
  EXPECT_FALSE(fs::exists(dir / "out" / "pac_z.npy"));

  {
    CliProcess cli(args, dir.path());
    ASSERT_TRUE(eventually([&] { return series_recorded(dir / "ck") > killed_at; }, 60s * kSanitizerSlowdown)) << cli.err_so_far();
    cli.send(SIGINT);
    const auto result = cli.wait_for(10s * kSanitizerSlowdown);
    ASSERT_TRUE(result);
    EXPECT_EQ(result->exit_code, 130) << result->err;
    EXPECT_NE(result->err.find("run the same command again to resume"), std::string::npos) << result->err;
  }
  const std::int64_t interrupted_at = series_recorded(dir / "ck");
  EXPECT_GT(interrupted_at, killed_at);

  const auto resumed = run_cli("run p.pipe --out out --batch 5 --checkpoint ck", dir.path());  // another batch size
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("resumed from the checkpoint in ck at series " + std::to_string(interrupted_at)),
            std::string::npos)
      << resumed.out;
  auto got = folder_contents(dir / "out");
  auto want = folder_contents(dir / "reference");
  got.erase("result.json");  // timings and the checkpoint's note differ
  want.erase("result.json");
  ASSERT_EQ(got.size(), 12u);  // 6 arrays per series, 4 of the trial-level test (resumed from its sums), 2 images
  for (const auto& [name, bytes] : want) EXPECT_TRUE(got[name] == bytes) << name << " differs from the uninterrupted run";
  EXPECT_FALSE(fs::exists(dir / "ck"));
}

TEST(CliCheckpoint, ChangedPipelineOrUnresumableSinkIsRefusedWithExitTwo) {
  const ScratchDir dir("cli_checkpoint");
  dir.write("p.pipe", pac_pipe(16));
  {
    CliProcess cli({"run", "p.pipe", "-q", "--batch", "2", "--checkpoint", "ck"}, dir.path());
    ASSERT_TRUE(eventually([&] { return series_recorded(dir / "ck") > 0; }, 60s * kSanitizerSlowdown)) << cli.err_so_far();
    cli.send(SIGKILL);
  }
  const auto changed = run_cli("run p.pipe -q --checkpoint ck --set surrogates.n=100", dir.path());
  EXPECT_EQ(changed.exit_code, 2);
  EXPECT_NE(changed.err.find("it was made by another pipeline or input (at /pipeline/4/params/n: 200 in the "
                             "checkpoint, 100 now)"),
            std::string::npos)
      << changed.err;

  dir.write("h5.pipe", "source synthetic epochs=1 channels=2\nstage bandpass\nstage hilbert\nstage mi\nsink hdf5\n");
  const auto hdf5 = run_cli("run h5.pipe -q --checkpoint ck2", dir.path());
  EXPECT_EQ(hdf5.exit_code, 2);
  EXPECT_NE(hdf5.err.find("sink \"hdf5\" cannot keep its partial output in a checkpoint"), std::string::npos)
      << hdf5.err;
}

TEST(CliMemory, RunAboveMaxMemoryIsRefusedUpFrontWithTheEstimate) {
  const ScratchDir dir("cli_memory");
  dir.write("p.pipe", pac_pipe(2));
  const auto refused = run_cli("run p.pipe -q --max-memory 1MiB", dir.path());
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("the run needs an estimated"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("batches in flight"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("more than the memory limit of 1.0 MiB"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  EXPECT_EQ(run_cli("run p.pipe -q --max-memory 90%", dir.path()).exit_code, 0);
  const auto bad = run_cli("run p.pipe -q --max-memory lots", dir.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--max-memory: \"lots\" is not a memory amount"), std::string::npos) << bad.err;
}

// A file-size limit makes every write past 16 KiB fail (EFBIG), as a full disk would.
TEST(CliFullDisk, FailedWriteLeavesNoPartialOutputAndEarlierOutputsIntact) {
  const ScratchDir dir("cli_full_disk");
  dir.write("p.pipe", pac_pipe(4));
  ASSERT_EQ(run_cli("run p.pipe -q", dir.path()).exit_code, 0);
  const auto before = folder_contents(dir / "out");
  ASSERT_GT(before.at("pac_z.npy").size(), 16u << 10);

  CliProcess full({"run", "p.pipe", "-q"}, dir.path(), {16u << 10});
  const auto result = full.wait_for(60s * kSanitizerSlowdown);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->exit_code, 1) << result->err;
  EXPECT_NE(result->err.find("write failed: File too large"), std::string::npos) << result->err;
  EXPECT_EQ(folder_contents(dir / "out"), before);

  CliProcess fresh({"run", "p.pipe", "-q", "--out", "fresh"}, dir.path(), {16u << 10});
  const auto second = fresh.wait_for(60s * kSanitizerSlowdown);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->exit_code, 1) << second->err;
  EXPECT_TRUE(folder_contents(dir / "fresh").empty()) << "a failed run left files in a new output folder";
}

}  // namespace
}  // namespace pacflow
