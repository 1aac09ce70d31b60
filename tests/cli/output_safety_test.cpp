// The hostile campaign's cases (issue 16), as a user meets them: outputs that are device nodes,
// FIFOs, inputs or each other; inputs that are not regular files; several sinks failing apart; a
// full disk under a checkpointed run; kills during the commit; two runs into one folder; unwritable
// folders; absurd nesting, batch sizes and memory limits. Each ends with exit 2 (or the documented
// code), one clear line, and every file that existed before byte-identical.
#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <random>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include "engine/io/npy.hpp"
#include "engine/io/output_folders.hpp"
#include "engine/api/reserved_names.hpp"
#include "engine/io/checksum.hpp"
#include "tests/support/cli_process.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/folder_state.hpp"
#include "tests/support/sanitizers.hpp"
#include "tests/support/special_files.hpp"

namespace pacflow {
namespace {

using nlohmann::json;
using testing::contains;
using testing::CliProcess;
using testing::CliResult;
using testing::eventually;
using testing::folder_contents;
using testing::has_temporary;
using testing::read_file;
using testing::run_cli;
using testing::ScratchDir;
using testing::series_recorded;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

using testing::kSanitizerSlowdown;

// A quick coupled pipeline into npy and png sinks in out/: epochs × 4 series, bands × bands cells.
std::string safety_small_pipe(int seed = 3, int epochs = 1, int bands = 3) {
  const std::string n = std::to_string(bands);
  return "source synthetic epochs=" + std::to_string(epochs) + " channels=4 n_times=1024 chi=0.5 seed=" +
         std::to_string(seed) + "\nstage bandpass pha=4:12:" + n + " amp=60:120:" + n +
         "\nstage hilbert\nstage mi\nstage surrogates n=20 seed=7\nsink npy dir=out\n"
         "sink png path=out/comodulogram.png\n";
}

// Exactly one line on stderr, an error.
::testing::AssertionResult one_error_line(const CliResult& r) {
  if (r.err.rfind("error: ", 0) == 0 && std::count(r.err.begin(), r.err.end(), '\n') == 1)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected one error line, got:\n" << r.err;
}

// Runs the CLI in the background and waits at most `seconds`: a hang fails the test, not the suite.
CliResult run_bounded(const std::vector<std::string>& args, const fs::path& cwd, int seconds = 20) {
  CliProcess cli(args, cwd);
  const auto result = cli.wait_for(std::chrono::seconds(seconds * kSanitizerSlowdown));
  if (!result) {
    ADD_FAILURE() << "pipeline_cli hung (killed after " << seconds * kSanitizerSlowdown << " s): " << cli.err_so_far();
    return {-1, "", cli.err_so_far()};
  }
  return *result;
}

bool names_fifo(const fs::path& p) { return fs::is_fifo(fs::symlink_status(p)); }
bool names_char_device(const fs::path& p) { return fs::is_character_file(fs::symlink_status(p)); }

// Every way an output can name a path: a sink's file, a file inside a sink's folder, the trace, graph -o.
std::vector<std::vector<std::string>> writers_onto(const std::string& target) {
  return {{"run", "p.pipe", "-q", "--set", "png.path=" + target},
          {"run", "p.pipe", "-q", "--set", "npy.dir=d", "--set", "png.path=x.png"},  // d/pac.npy is the target
          {"run", "p.pipe", "-q", "--trace", target},
          {"graph", "p.pipe", "-o", target}};
}

TEST(OutputSafety, FifoOrDeviceAsAnOutputIsRefusedAndLeftAsItWas) {
  const ScratchDir dir("safety_special_out");
  dir.write("p.pipe", safety_small_pipe());
  fs::create_directory(dir / "d");
  testing::make_fifo(dir / "fifo");
  testing::make_fifo(dir / "d" / "pac.npy");
  for (const auto& args : writers_onto("fifo")) {
    const CliResult r = run_bounded(args, dir.path());
    EXPECT_EQ(r.exit_code, 2) << args[3] << ": " << r.err;
    EXPECT_TRUE(one_error_line(r));
    EXPECT_TRUE(contains(r.err, "is a named pipe (FIFO)")) << r.err;
  }
  EXPECT_TRUE(names_fifo(dir / "fifo") && names_fifo(dir / "d" / "pac.npy"));

  if (const std::string why = testing::make_char_device(dir / "null", 1, 3); !why.empty()) GTEST_SKIP() << why;
  fs::remove(dir / "d" / "pac.npy");
  ASSERT_TRUE(testing::make_char_device(dir / "d" / "pac.npy", 1, 3).empty());
  for (const auto& args : writers_onto("null")) {
    const CliResult r = run_bounded(args, dir.path());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(contains(r.err, "is a character device")) << r.err;
  }
  EXPECT_TRUE(names_char_device(dir / "null") && names_char_device(dir / "d" / "pac.npy"));
  EXPECT_FALSE(fs::exists(dir / "out")) << "a refused run created its output folder";
}

TEST(OutputSafety, InputsThatAreNotRegularFilesAreRefusedAtOnce) {
  const ScratchDir dir("safety_special_in");
  dir.write("p.pipe", safety_small_pipe());
  dir.write("npy.pipe", "source npy path=in.npy fs=256\nstage bandpass\nstage hilbert\nstage mi\nsink npy dir=out\n");
  testing::make_fifo(dir / "fifo.pipe");
  testing::make_fifo(dir / "in.npy");
  fs::create_directory(dir / "folder.npy");
  fs::create_symlink("loop_b", dir / "loop_a");
  fs::create_symlink("loop_a", dir / "loop_b");
  fs::create_directory(dir / "ck");
  testing::make_fifo(dir / "ck" / "checkpoint.json");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", "fifo.pipe"}, "fifo.pipe: is a named pipe (FIFO)"},
      {{"validate", "fifo.pipe"}, "fifo.pipe: is a named pipe (FIFO)"},
      {{"run", "npy.pipe", "-q"}, "in.npy: is a named pipe (FIFO)"},
      {{"run", "npy.pipe", "-q", "--set", "source.path=folder.npy"}, "folder.npy: is a directory"},
      {{"run", "npy.pipe", "-q", "--set", "source.path=loop_a"}, "loop_a: too many levels of symbolic links"},
      {{"run", "loop_a"}, "loop_a: too many levels of symbolic links"},
      {{"run", "p.pipe", "-q", "--checkpoint", "ck"}, "checkpoint.json: is a named pipe (FIFO)"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult r = run_bounded(args, dir.path());
    EXPECT_EQ(r.exit_code, 2) << args[1] << ": " << r.err;
    EXPECT_TRUE(one_error_line(r));
    EXPECT_TRUE(contains(r.err, message)) << r.err;
  }
  if (const std::string why = testing::make_char_device(dir / "zero", 1, 5); !why.empty()) GTEST_SKIP() << why;
  for (const auto& args : {std::vector<std::string>{"run", "zero"},
                           std::vector<std::string>{"run", "npy.pipe", "-q", "--set", "source.path=zero"}}) {
    const CliResult r = run_bounded(args, dir.path());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(contains(r.err, "zero: is a character device")) << r.err;
  }
}

TEST(OutputSafety, AnOutputOverAnInputOrAnotherOutputIsRefusedNamingBoth) {
  const ScratchDir dir("safety_clobber");
  {
    NpyWriter w(dir / "rec.npy", {2, 1024});
    std::vector<float> x(2048);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)));
    w.append(x.data(), 2048);
    w.commit();
  }
  fs::create_directory(dir / "sub");
  fs::create_symlink("rec.npy", dir / "alias.npy");
  dir.write("p.pipe",
            "source npy path=rec.npy fs=256\nstage bandpass pha=[[4,8]] amp=[[60,80]]\nstage hilbert\nstage mi\n"
            "sink hdf5 path=out/r.h5\nsink npy dir=out\n");
  dir.write("q.pipe", "source npy path=rec.npy fs=256\nstage bandpass pha=[[4,8]] amp=[[60,80]]\nstage hilbert\n"
                      "stage mi\nsink npy dir=out\n");
  fs::copy_file(dir / "rec.npy", dir / "pac.npy");  // an input named like a result
  const auto before = folder_contents(dir.path());
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", "p.pipe", "-q", "--set", "hdf5.path=sub/../rec.npy"}, "would replace the input file rec.npy"},
      {{"run", "p.pipe", "-q", "--set", "hdf5.path=alias.npy"}, "would replace the input file rec.npy"},
      {{"run", "p.pipe", "-q", "--set", "hdf5.path=p.pipe"}, "would replace the input file p.pipe"},
      {{"run", "q.pipe", "-q", "--set", "source.path=pac.npy", "--set", "sink.dir=."},
       "would replace the input file pac.npy"},
      {{"run", "p.pipe", "-q", "--set", "hdf5.path=out/pac.npy"}, "is also written by sink \"hdf5\""},
      {{"run", "p.pipe", "-q", "--trace", "out/result.json"}, "is also written by sink \"npy\""},
      {{"graph", "p.pipe", "-o", "rec.npy"}, "would replace the input file rec.npy"},
      {{"run", "p.pipe", "-q", "--checkpoint", "ck", "--trace", "ck/checkpoint.json"},
       "ck/checkpoint.json is a file of the checkpoint in ck"},
      {{"run", "p.pipe", "-q", "--trace", "out/.pacflow-commit.json"}, "is a name pacflow keeps for its own"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult r = run_bounded(args, dir.path());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(one_error_line(r));
    EXPECT_TRUE(contains(r.err, message)) << r.err;
  }
  EXPECT_EQ(folder_contents(dir.path()), before) << "an input changed, or a refused run left something";
}

// A symbolic link at an output is followed: the file it points to is replaced, the link stays.
TEST(OutputSafety, ALinkAtAnOutputReplacesTheFileItPointsTo) {
  const ScratchDir dir("safety_link");
  dir.write("p.pipe", safety_small_pipe());
  fs::create_directory(dir / "kept");
  dir.write("kept/plot.png", "an earlier plot");
  fs::create_directory(dir / "out");
  fs::create_symlink("../kept/plot.png", dir / "out" / "comodulogram.png");
  const CliResult r = run_cli("run p.pipe -q --set png.grid=false", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "out" / "comodulogram.png"));
  EXPECT_EQ(read_file(dir / "kept" / "plot.png").substr(1, 3), "PNG");
}

// A file-size limit lets the arrays and result.json be written but not the pngs (over 20 KB): the
// png sink fails after the npy sink has written everything. Nothing of the earlier run may change.
TEST(OutputSafety, SinksCommitTogetherSoOneFailingLeavesEveryEarlierOutput) {
  const ScratchDir dir("safety_together");
  dir.write("old.pipe", safety_small_pipe(1));
  dir.write("new.pipe", safety_small_pipe(2));
  ASSERT_EQ(run_cli("run old.pipe -q --trace out/trace.json", dir.path()).exit_code, 0);
  const auto before = folder_contents(dir / "out");
  ASSERT_GT(before.at("comodulogram.png").size(), 20000u);
  ASSERT_LT(before.at("result.json").size(), 20000u);

  CliProcess cli({"run", "new.pipe", "-q", "--trace", "out/trace.json"}, dir.path(), {20000});
  const auto r = cli.wait_for(60s * kSanitizerSlowdown);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->exit_code, 1) << r->err;
  EXPECT_TRUE(contains(r->err, ".png: write failed: File too large")) << r->err;
  EXPECT_EQ(folder_contents(dir / "out"), before) << "an earlier output was replaced, or a temporary was left";
}

// --checkpoint on one file system, --out on a small tmpfs holding the earlier outputs: the final
// copy fills the disk. Every earlier output stays, and once there is room the same command resumes
// and finishes with the bytes of an uninterrupted run.
TEST(OutputSafety, CheckpointedRunMeetingAFullDiskAtItsCommitStaysResumable) {
  const ScratchDir dir("safety_full_commit");
  std::string why;
  const auto disk = testing::Mount::tmpfs(dir / "small", 512 << 10, why);
  if (!disk) GTEST_SKIP() << why;
  dir.write("old.pipe", safety_small_pipe(1, 32, 10));  // 6 arrays of 51 KiB: 330 KiB with result.json and the plot
  dir.write("new.pipe", safety_small_pipe(2, 32, 10));
  ASSERT_EQ(run_cli("run new.pipe -q --out reference --set png.grid=false", dir.path()).exit_code, 0);
  ASSERT_EQ(run_cli("run old.pipe -q --out small/out --set png.grid=false", dir.path()).exit_code, 0);
  const auto before = folder_contents(dir / "small" / "out");
  const std::string command = "run new.pipe -q --out small/out --set png.grid=false --checkpoint ck";

  const CliResult full = run_cli(command, dir.path());
  EXPECT_EQ(full.exit_code, 1) << full.err;
  EXPECT_TRUE(contains(full.err, "No space left on device")) << full.err;
  EXPECT_EQ(folder_contents(dir / "small" / "out"), before);
  EXPECT_EQ(series_recorded(dir / "ck"), 128) << "the checkpoint must keep every batch";

  for (const auto& [name, bytes] : before) fs::remove(dir / "small" / "out" / name);  // the user makes room
  const CliResult resumed = run_cli(command, dir.path());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  auto got = folder_contents(dir / "small" / "out");
  auto want = folder_contents(dir / "reference");
  got.erase("result.json");
  want.erase("result.json");
  EXPECT_EQ(got, want);
  EXPECT_FALSE(fs::exists(dir / "ck"));
}

// SIGKILL at random moments around the commit of a checkpointed run, over an earlier run's outputs:
// the folder never keeps a mix once the next run has taken it, and the same command always finishes
// with the bytes of an uninterrupted run.
TEST(OutputSafety, KillsDuringTheCommitNeverLeaveAMixedSetAndTheRunStaysResumable) {
  const ScratchDir dir("safety_kill_commit");
  dir.write("old.pipe", safety_small_pipe(1, 16));
  dir.write("new.pipe", safety_small_pipe(2, 16));
  ASSERT_EQ(run_cli("run new.pipe -q --out reference", dir.path()).exit_code, 0);
  auto want = folder_contents(dir / "reference");
  want.erase("result.json");
  const std::vector<std::string> args{"run", "new.pipe", "-q", "--out", "out", "--batch", "4", "--checkpoint", "ck"};
  std::mt19937 random(7);
  for (int trial = 0; trial < 8; ++trial) {
    fs::remove_all(dir / "out");
    fs::remove_all(dir / "ck");
    ASSERT_EQ(run_cli("run old.pipe -q --out out", dir.path()).exit_code, 0);
    {
      CliProcess cli(args, dir.path());
      ASSERT_TRUE(eventually([&] { return series_recorded(dir / "ck") == 64 || cli.finished(); }, 60s * kSanitizerSlowdown));
      std::this_thread::sleep_for(std::chrono::microseconds(random() % 20000));
      if (!cli.finished()) cli.send(SIGKILL);
      ASSERT_TRUE(cli.wait_for(10s));
    }
    const CliResult again = run_cli("run new.pipe -q --out out --batch 4 --checkpoint ck", dir.path());
    ASSERT_EQ(again.exit_code, 0) << "trial " << trial << ": " << again.err;
    auto got = folder_contents(dir / "out");
    got.erase("result.json");
    EXPECT_EQ(got, want) << "trial " << trial;
    EXPECT_FALSE(fs::exists(dir / "ck"));
  }
}

TEST(OutputSafety, ASecondRunIntoAFolderInUseIsRefusedNamingTheFirst) {
  const ScratchDir dir("safety_two_runs");
  dir.write("long.pipe", safety_small_pipe(1, 400));
  dir.write("short.pipe", safety_small_pipe(2));
  CliProcess first({"run", "long.pipe", "-q", "--batch", "1"}, dir.path());
  ASSERT_TRUE(eventually([&] { return has_temporary(dir / "out"); }, 60s * kSanitizerSlowdown)) << first.err_so_far();
  const CliResult second = run_cli("run short.pipe -q", dir.path());
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_TRUE(one_error_line(second));
  EXPECT_TRUE(contains(second.err, "another pacflow run (pid " + std::to_string(first.pid()))) << second.err;
  const auto done = first.wait_for(120s * kSanitizerSlowdown);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->exit_code, 0) << done->err;
  const json report = json::parse(read_file(dir / "out" / "result.json"));
  EXPECT_EQ(report["input"]["epochs"], 400) << "the outputs are not all the first run's";
  EXPECT_FALSE(fs::exists(dir / "out" / kOutputLock));
}

TEST(OutputSafety, TemporariesOfAKilledRunAreRemovedByTheNextRunThere) {
  const ScratchDir dir("safety_stale");
  dir.write("long.pipe", safety_small_pipe(1, 400));
  dir.write("short.pipe", safety_small_pipe(2));
  {
    CliProcess killed({"run", "long.pipe", "-q", "--batch", "1"}, dir.path());
    ASSERT_TRUE(eventually([&] { return has_temporary(dir / "out"); }, 60s * kSanitizerSlowdown)) << killed.err_so_far();
    killed.send(SIGKILL);
    ASSERT_TRUE(killed.wait_for(10s));
  }
  ASSERT_TRUE(has_temporary(dir / "out"));
  const CliResult r = run_cli("run short.pipe", dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // One file or several, whichever the killed run had open when the signal came.
  EXPECT_TRUE(contains(r.err, "of runs that were killed")) << r.err;
  EXPECT_FALSE(has_temporary(dir / "out"));
}

TEST(OutputSafety, AnUnwritableOutputExitsTwoForEverySinkAndTheTrace) {
  const ScratchDir dir("safety_read_only");
  dir.write("p.pipe", safety_small_pipe());
  fs::create_directory(dir / "ro");
  std::string why;
  const auto read_only = testing::Mount::read_only(dir / "ro", why);
  if (!read_only) GTEST_SKIP() << why;
  const std::vector<std::vector<std::string>> cases = {
      {"run", "p.pipe", "-q", "--set", "npy.dir=ro", "--set", "png.path=w/x.png"},
      {"run", "p.pipe", "-q", "--set", "png.path=ro/x.png"},
      {"run", "p.pipe", "-q", "--set", "npy.dir=w", "--set", "png.path=w/x.png", "--trace", "ro/t.json"},
      {"graph", "p.pipe", "-o", "ro/g.dot"},
  };
  for (const auto& args : cases) {
    const CliResult r = run_bounded(args, dir.path());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(one_error_line(r));
    EXPECT_TRUE(contains(r.err, "Read-only file system")) << r.err;
  }
  dir.write("h5.pipe", "source synthetic epochs=1 channels=2\nstage bandpass\nstage hilbert\nstage mi\nsink hdf5 "
                       "path=ro/r.h5\n");
  const CliResult hdf5 = run_bounded({"run", "h5.pipe", "-q"}, dir.path());
  EXPECT_EQ(hdf5.exit_code, 2) << hdf5.err;
  EXPECT_TRUE(contains(hdf5.err, "Read-only file system")) << hdf5.err;
  EXPECT_FALSE(fs::exists(dir / "w")) << "a refused run left a folder it created";
}

TEST(OutputSafety, ListsNestedBeyondTheLimitAreRefused) {
  const ScratchDir dir("safety_nesting");
  const std::string deep = std::string(50000, '[') + std::string(50000, ']');
  dir.write("deep.pipe", "source synthetic\nstage bandpass pha=" + deep + "\nstage hilbert\nstage mi\nsink npy\n");
  dir.write("p.pipe", safety_small_pipe());
  for (const auto& args : {std::vector<std::string>{"run", "deep.pipe"}, std::vector<std::string>{"validate", "deep.pipe"},
                           std::vector<std::string>{"run", "p.pipe", "--set", "bandpass.pha=" + deep}}) {
    const CliResult r = run_bounded(args, dir.path());
    EXPECT_EQ(r.exit_code, 2) << r.err.substr(0, 300);
    EXPECT_TRUE(contains(r.err, "lists nested deeper than 32 levels")) << r.err.substr(0, 300);
    EXPECT_LT(r.err.size(), 300u) << "the message should not echo the whole value";
  }
}

// The refusals come before anything that grows with the input is allocated: the CLI's peak memory
// stays far below what the run would need.
TEST(OutputSafety, MemoryIsCheckedBeforeAnythingGrowsWithTheInput) {
#if defined(PACFLOW_UNDER_ASAN)
  GTEST_SKIP() << "peak RSS means nothing under AddressSanitizer";
#endif
  const ScratchDir dir("safety_memory");
  testing::write_sparse_npy(dir / "long.npy", "(67108864,)", std::uintmax_t{1} << 26);  // 256 MiB: 5 GiB of filter spectra
  dir.write("long.pipe", "source npy path=long.npy fs=1000\nstage bandpass\nstage hilbert\nstage mi\nsink npy dir=o\n");
  dir.write("bands.pipe", "source synthetic epochs=1 channels=1\nstage bandpass pha=2:20:100000\nstage hilbert\n"
                          "stage mi\nsink npy dir=o\n");
  for (const auto& [pipe, limit] : {std::pair{"long.pipe", "100MB"}, std::pair{"bands.pipe", "1GB"}}) {
    CliProcess cli({"run", pipe, "-q", "--max-memory", limit}, dir.path());
    const auto r = cli.wait_for(60s * kSanitizerSlowdown);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->exit_code, 2) << r->err;
    EXPECT_TRUE(one_error_line(*r));
    EXPECT_TRUE(contains(r->err, "more than the memory limit")) << r->err;
    EXPECT_LT(cli.peak_rss_kib(), 100 * 1024) << pipe << ": memory was allocated before the check";
  }
}

TEST(OutputSafety, BatchAndInFlightAreCappedAtWhatTheInputHas) {
  const ScratchDir dir("safety_caps");
  dir.write("p.pipe", safety_small_pipe(3, 32));  // 128 series
  for (const auto& [options, key, value] :
       // Batches hold whole blocks of the trial-level test (8 epochs of 4 channels): 4 batches at most.
       {std::tuple{"--batch 100000", "batch_size", 128}, std::tuple{"--in-flight 100000 --batch 1", "max_in_flight", 4}}) {
    const CliResult r = run_cli(std::string("run p.pipe -q --max-memory 512MiB ") + options, dir.path());
    ASSERT_EQ(r.exit_code, 0) << options << ": " << r.err;
    const json report = json::parse(read_file(dir / "out" / "result.json"));
    EXPECT_EQ(report["run"][key], value) << options;
  }
}

TEST(OutputSafety, MaxMemoryAmountsNeedAUnitOrAPercentSign) {
  const ScratchDir dir("safety_units");
  dir.write("p.pipe", safety_small_pipe());
  for (const char* bare : {"1", "2", "0.5", "8000000000"}) {
    const CliResult r = run_cli(std::string("run p.pipe -q --max-memory ") + bare, dir.path());
    EXPECT_EQ(r.exit_code, 2) << bare << ": " << r.err;
    EXPECT_TRUE(contains(r.err, std::string("--max-memory: \"") + bare + "\" has no unit")) << r.err;
  }
  // Each impossible amount is named for what it is (issue 35, item 23).
  for (const auto& [amount, why] : std::vector<std::pair<std::string, std::string>>{
           {"0%", "is not a share above 0% and at most 100%"},
           {"nanGB", "is not a finite amount"},
           {"1e300TB", "is beyond any machine's memory"},
           {"100KB", "is less than 1 MiB"}}) {
    const CliResult r = run_cli("run p.pipe -q --max-memory " + amount, dir.path());
    EXPECT_EQ(r.exit_code, 2) << amount << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "--max-memory: \"" + amount + "\" " + why)) << r.err;
  }
  EXPECT_EQ(run_cli("run p.pipe -q --max-memory 50%", dir.path()).exit_code, 0);
  EXPECT_EQ(run_cli("run p.pipe -q --max-memory 1GiB", dir.path()).exit_code, 0);
}

// A checkpoint whose manifest and sink records disagree (edited, or from a damaged disk) is refused
// before any batch runs, saying what disagrees.
TEST(OutputSafety, ACheckpointWhoseRecordsDisagreeIsRefusedUpFront) {
  const ScratchDir dir("safety_checkpoint_records");
  dir.write("p.pipe", safety_small_pipe(3, 100));
  {
    CliProcess cli({"run", "p.pipe", "-q", "--batch", "4", "--checkpoint", "ck"}, dir.path());
    ASSERT_TRUE(eventually([&] { return series_recorded(dir / "ck") >= 40; }, 60s * kSanitizerSlowdown)) << cli.err_so_far();
    cli.send(SIGKILL);
    ASSERT_TRUE(cli.wait_for(10s));
  }
  const std::string manifest = read_file(dir / "ck" / "checkpoint.json");
  // Edited and sealed again (a forged checksum): the records must still agree with each other.
  const auto edited = [&](const std::function<void(json&)>& edit, bool reseal = true) {
    json m = json::parse(manifest);
    edit(m);
    std::ofstream(dir / "ck" / "checkpoint.json") << (reseal ? sealed(m) : m).dump();
    return run_bounded({"run", "p.pipe", "-q", "--batch", "4", "--checkpoint", "ck"}, dir.path());
  };
  // Edited without its checksum: refused as damaged, whatever changed.
  const CliResult flipped = edited([](json& m) { m["series_done"] = m["series_done"].get<std::int64_t>() - 32; }, false);
  EXPECT_EQ(flipped.exit_code, 2) << flipped.err;
  EXPECT_TRUE(one_error_line(flipped));
  EXPECT_TRUE(contains(flipped.err, "a damaged or edited checkpoint record")) << flipped.err;
  // One batch fewer: batches hold whole blocks of the trial-level test, 8 epochs of 4 channels.
  const CliResult fewer = edited([](json& m) { m["series_done"] = m["series_done"].get<std::int64_t>() - 32; });
  EXPECT_EQ(fewer.exit_code, 2) << fewer.err;
  EXPECT_TRUE(one_error_line(fewer));
  EXPECT_TRUE(contains(fewer.err, "the checkpoint is inconsistent")) << fewer.err;
  const CliResult total = edited([](json& m) { m["series_total"] = 12; });
  EXPECT_EQ(total.exit_code, 2) << total.err;
  EXPECT_TRUE(contains(total.err, "inconsistent checkpoint")) << total.err;
  const CliResult deep = edited([](json& m) {
    json v = json::array();
    for (int i = 0; i < 200; ++i) v = json::array({v});
    m["sinks"][0]["extra"] = v;
  });
  EXPECT_EQ(deep.exit_code, 2) << deep.err;
  EXPECT_TRUE(contains(deep.err, "nested deeper than 64 levels")) << deep.err;
  EXPECT_FALSE(fs::exists(dir / "out" / "pac.npy"));
}

// Opening a large input (its checksum) takes seconds; a signal ends it within a second.
TEST(OutputSafety, ASignalWhileALargeInputIsOpenedStopsTheRunWithinASecond) {
  const ScratchDir dir("safety_open_signal");
  testing::write_sparse_npy(dir / "big.npy", "(1024, 1048576)", std::uintmax_t{1} << 30);  // 4 GiB: seconds to hash
  dir.write("big.pipe", "source npy path=big.npy fs=1000\nstage bandpass\nstage hilbert\nstage mi\nsink npy dir=out\n");
  CliProcess cli({"run", "big.pipe"}, dir.path());
  std::this_thread::sleep_for(300ms);
  ASSERT_FALSE(cli.finished()) << "the checksum ended too soon to test: " << cli.err_so_far();
  const auto sent = std::chrono::steady_clock::now();
  cli.send(SIGTERM);
  const auto r = cli.wait_for(1s * kSanitizerSlowdown);
  ASSERT_TRUE(r) << "SIGTERM did not stop the run within a second while it opened its input";
  EXPECT_LT(std::chrono::steady_clock::now() - sent, 1s * kSanitizerSlowdown);
  EXPECT_EQ(r->exit_code, 143) << r->err;
  EXPECT_TRUE(contains(r->err, "interrupted by SIGTERM after 0 batches")) << r->err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

}  // namespace
}  // namespace pacflow
