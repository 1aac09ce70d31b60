// The second hostile campaign (issue 35), as a user meets it: datasets, shards, merge, checkpoint
// folders and --clean held to the discipline of a single run. Every writer goes through the same
// checks and the same commit; whatever is refused or fails leaves every file that existed before
// byte-identical; what is read back (a shard, a checkpoint) is checked before it is trusted.
#include <csignal>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sys/stat.h>

#include "engine/api/reserved_names.hpp"
#include "engine/io/checksum.hpp"
#include "engine/io/npy.hpp"
#include "engine/io/output_folders.hpp"
#include "tests/support/cli_process.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/folder_state.hpp"
#include "tests/support/special_files.hpp"

namespace pacflow {
namespace {

using nlohmann::json;
using testing::contains;
using testing::CliProcess;
using testing::CliResult;
using testing::eventually;
using testing::has_temporary;
using testing::read_file;
using testing::run_cli;
using testing::ScratchDir;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

using testing::kSanitizerSlowdown;
// A merge that sizes nothing by a record's claims stays near its baseline: 15 MiB here, about 200 MiB
// under AddressSanitizer (its shadow memory); the claims refused below would take gigabytes.
constexpr long kMergePeakKiB = (kSanitizerSlowdown > 1 ? 600 : 200) * 1024;

// Every file under `dir` (recursively, hidden ones too) with its bytes; a link or a special file is
// named, never followed or opened.
std::map<std::string, std::string> tree(const fs::path& dir) {
  std::map<std::string, std::string> files;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return files;
  for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = fs::relative(it->path(), dir).string();
    const auto status = it->symlink_status();
    if (fs::is_symlink(status))
      files[name] = "<link to " + fs::read_symlink(it->path()).string() + ">";
    else if (fs::is_regular_file(status))
      files[name] = read_file(it->path());
    else if (!fs::is_directory(status))
      files[name] = "<special>";
  }
  return files;
}

// A recording: [4 epochs][channels][samples] float32 at 512 Hz, noise with 6 Hz phase driving 80 Hz
// amplitude.
void dataset_write_recording(const fs::path& path, int channels, int samples, unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<float> noise;
  const std::int64_t epochs = 4;
  NpyWriter writer(path, {epochs, channels, samples});
  std::vector<float> row(static_cast<std::size_t>(samples));
  for (std::int64_t e = 0; e < epochs * channels; ++e) {
    for (int t = 0; t < samples; ++t) {
      const double s = t / 512.0;
      row[static_cast<std::size_t>(t)] = noise(random) + static_cast<float>((1 + std::sin(2 * M_PI * 6 * s)) *
                                                                            std::sin(2 * M_PI * 80 * s));
    }
    writer.append(row.data(), samples);
  }
  writer.commit();
}

constexpr const char* kDatasetStages =
    "stage bandpass pha=4:12:3 amp=60:100:3\nstage hilbert\nstage mi\nstage surrogates n=20 seed=3\n";

// raw/sub-0K.npy for K = 1..count, subjects.tsv naming them, ds.pipe running them into out/.
void write_hdf5_dataset(const ScratchDir& dir, int count = 3, const std::string& manifest_extra = "") {
  fs::create_directories(dir / "raw");
  std::string table = "id\tpath\tfs\n";
  for (int k = 1; k <= count; ++k) {
    const std::string id = "sub-0" + std::to_string(k);
    dataset_write_recording(dir / "raw" / (id + ".npy"), 2, 1024, static_cast<unsigned>(k));
    table += id + "\traw/" + id + ".npy\t512\n";
  }
  dir.write("subjects.tsv", table);
  dir.write("ds.pipe", "source manifest path=subjects.tsv" + manifest_extra + "\n" + kDatasetStages + "sink npy dir=out\n");
}

std::map<std::string, std::string> without_lock(std::map<std::string, std::string> files) {
  std::erase_if(files, [](const auto& f) { return fs::path(f.first).filename() == kOutputLock; });
  return files;
}

// --- outputs: stacked=, reserved ids, --clean ---

TEST(DatasetSafety, AStackedFileNamingAnInputOrARecordingsFileIsRefusedAndLeftAsItWas) {
  const ScratchDir dir("ds_stacked");
  write_hdf5_dataset(dir);
  ASSERT_EQ(run_cli("run ds.pipe -q", dir.path()).exit_code, 0);
  for (const std::string target : {"raw/sub-01.npy", "subjects.tsv", "ds.pipe", "out/sub-01/pac.npy", "out/sub-02"}) {
    const auto before = tree(dir.path());
    const CliResult r = run_cli("run ds.pipe -q --set source.stacked=" + target, dir.path());
    EXPECT_EQ(r.exit_code, 2) << target << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "parameter \"stacked\"")) << r.err;
    EXPECT_EQ(without_lock(tree(dir.path())), without_lock(before)) << target << " or another file changed";
    const CliResult checked = run_cli("validate ds.pipe --set source.stacked=" + target, dir.path());
    EXPECT_EQ(checked.exit_code, 2) << "validate makes the same checks: " << checked.err;
  }
}

TEST(DatasetSafety, IdsThatArePacflowsOwnNamesInAnOutputFolderAreRefusedAtTheirLine) {
  const ScratchDir dir("ds_reserved_ids");
  write_hdf5_dataset(dir, 1);
  for (const std::string id : {".pacflow.lock", "result.json", ".hidden", "recordings.h5"}) {
    dir.write("subjects.tsv", "id\tpath\tfs\nsub-01\traw/sub-01.npy\t512\n" + id + "\traw/sub-01.npy\t512\n");
    const CliResult r = run_cli("run ds.pipe -q", dir.path());
    EXPECT_EQ(r.exit_code, 2) << id << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "subjects.tsv:3")) << r.err;
    EXPECT_FALSE(fs::exists(dir / "out" / "sub-01")) << id;
  }
}

TEST(CleanSafety, CleanNeverRemovesTheRunsOwnInputsWhateverAnEarlierReportLists) {
  const ScratchDir dir("clean_inputs");
  fs::create_directories(dir / "out");
  dataset_write_recording(dir / "out" / "rec.npy", 2, 1024, 1);
  dir.write("out/p.pipe", std::string("source npy path=rec.npy fs=512\n") + kDatasetStages + "sink npy dir=.\n");
  dir.write("out/old.npy", "stale");
  dir.write("out/result.json", R"({"files": [{"path": "rec.npy"}, {"path": "p.pipe"}, {"path": "old.npy"}]})");
  const std::string recording = read_file(dir / "out" / "rec.npy");
  const CliResult r = run_cli("run out/p.pipe -q --clean", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(dir / "out" / "rec.npy"), recording);
  EXPECT_TRUE(fs::exists(dir / "out" / "p.pipe"));
  EXPECT_FALSE(fs::exists(dir / "out" / "old.npy")) << "the earlier run's own file is stale";
  EXPECT_TRUE(fs::exists(dir / "out" / "pac.npy"));
}

// --- checkpoint folders ---

TEST(CheckpointSafety, EntriesTheCheckpointDidNotMakeAreRefusedNeverRemovedOrWrittenThrough) {
  const ScratchDir dir("checkpoint_foreign");
  write_hdf5_dataset(dir, 1);
  dir.write("p.pipe", std::string("source npy path=raw/sub-01.npy fs=512\n") + kDatasetStages + "sink npy dir=out\n");
  fs::create_directories(dir / "ck" / "sink-0-npy" / "mine");
  dir.write("ck/sink-0-npy/mine/notes.txt", "the user's");
  CliResult r = run_cli("run p.pipe -q --checkpoint ck", dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "is not a folder this checkpoint made")) << r.err;
  EXPECT_EQ(read_file(dir / "ck" / "sink-0-npy" / "mine" / "notes.txt"), "the user's");

  fs::remove_all(dir / "ck");
  fs::create_directories(dir / "ck");
  fs::create_directories(dir / "elsewhere");
  fs::create_directory_symlink(dir / "elsewhere", dir / "ck" / "sink-0-npy");
  r = run_cli("run p.pipe -q --checkpoint ck", dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "a symbolic link")) << r.err;
  EXPECT_TRUE(fs::is_empty(dir / "elsewhere")) << "written through the link";
  EXPECT_TRUE(fs::is_symlink(dir / "ck" / "sink-0-npy"));

  fs::remove(dir / "ck" / "sink-0-npy");
  r = run_cli("run p.pipe -q --checkpoint ck", dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir / "ck")) << "a checkpoint it made is removed when the run ends";
}

TEST(CheckpointSafety, AFlippedByteInAPartialOutputIsRefusedBeforeResuming) {
  const ScratchDir dir("checkpoint_flipped");
  dir.write("p.pipe",
            "source synthetic epochs=400 channels=4 n_times=1024 chi=0.5 seed=2\n"
            "stage bandpass pha=4:12:3 amp=60:120:3\nstage hilbert\nstage mi\nsink npy dir=out\n");
  {
    CliProcess cli({"run", "p.pipe", "-q", "--batch", "4", "--checkpoint", "ck"}, dir.path());
    ASSERT_TRUE(eventually([&] { return testing::series_recorded(dir / "ck") >= 40; }, 60s * kSanitizerSlowdown))
        << cli.err_so_far();
    cli.send(SIGKILL);
    ASSERT_TRUE(cli.wait_for(10s));
  }
  const fs::path partial = dir / "ck" / "sink-0-npy" / "pac.npy";
  ASSERT_TRUE(fs::exists(partial));
  {
    std::fstream file(partial, std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(200);  // past the header, inside the first series recorded
    const char c = static_cast<char>(file.get());
    file.seekp(200);
    file.put(static_cast<char>(c ^ 0x10));
  }
  const CliResult r = run_cli("run p.pipe -q --batch 4 --checkpoint ck", dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "its checksum differs")) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out" / "pac.npy"));
}

// --- datasets as transactions ---

TEST(DatasetSafety, AReRunThatFailsAtARecordingLeavesEveryFileOfTheEarlierRunAsItWas) {
  const ScratchDir dir("ds_transaction");
  write_hdf5_dataset(dir);
  ASSERT_EQ(run_cli("run ds.pipe -q", dir.path()).exit_code, 0);
  const auto before = tree(dir / "out");
  ASSERT_TRUE(before.count("recordings.h5") && before.count("sub-03/pac.npy"));

  dir.write("raw/sub-02.npy", "not an npy file");  // row 2 of 3 now fails to open
  CliResult r = run_cli("run ds.pipe -q --set surrogates.seed=4", dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "recording sub-02")) << r.err;
  EXPECT_TRUE(contains(r.err, "no output written")) << r.err;
  EXPECT_EQ(without_lock(tree(dir / "out")), before) << "rows of two runs mixed";

  // Row 2 of another shape: stacking stops there, at once and quietly (no HDF5 error stacks).
  dataset_write_recording(dir / "raw" / "sub-02.npy", 3, 1024, 2);
  r = run_cli("run ds.pipe -q --set surrogates.seed=4", dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "subjects.tsv:3: recording sub-02")) << r.err;
  EXPECT_TRUE(contains(r.err, "cannot stack")) << r.err;
  EXPECT_FALSE(contains(r.err, "HDF5-DIAG")) << r.err;
  EXPECT_EQ(without_lock(tree(dir / "out")), before);
}

TEST(DatasetCheckpoint, ARecordingThatFailsLeavesTheOthersKeptAndTheReRunTakesThemGivingTheSameBytes) {
  const ScratchDir dir("ds_checkpoint");
  write_hdf5_dataset(dir);
  ASSERT_EQ(run_cli("run ds.pipe -q --out whole", dir.path()).exit_code, 0);
  const auto uninterrupted = tree(dir / "whole");

  dir.write("raw/sub-03.npy", "not an npy file");  // the last row fails once two are done
  CliResult r = run_cli("run ds.pipe --checkpoint ck", dir.path());
  ASSERT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "recording sub-03")) << r.err;
  EXPECT_TRUE(contains(r.err, "the checkpoint in ck keeps the recordings that finished")) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out")) << "a dataset is one transaction";
  for (const char* id : {"sub-01", "sub-02"})
    EXPECT_TRUE(fs::is_regular_file(dir / "ck" / (std::string("recording-") + id) / "recording.json")) << id;
  EXPECT_FALSE(fs::exists(dir / "ck" / "recording-sub-03" / "recording.json"));

  // A damaged kept file: that recording runs again, the other is taken.
  const fs::path kept = dir / "ck" / "recording-sub-02" / "file-0";
  std::string bytes = read_file(kept);
  bytes[bytes.size() / 2] ^= 0x20;
  dir.write(fs::relative(kept, dir.path()).string(), bytes);
  dataset_write_recording(dir / "raw" / "sub-03.npy", 2, 1024, 3);
  r = run_cli("run ds.pipe --checkpoint ck", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "1 recordings taken from the checkpoint in ck")) << r.out;
  EXPECT_FALSE(fs::exists(dir / "ck")) << "the checkpoint goes once the dataset is committed";
  auto resumed = tree(dir / "out");
  EXPECT_EQ(without_lock(resumed).size(), without_lock(uninterrupted).size());
  for (const auto& [name, content] : uninterrupted) {
    if (fs::path(name).filename() == "result.json" || fs::path(name).filename() == kOutputLock) continue;
    EXPECT_EQ(resumed[name], content) << name << " differs from the uninterrupted run's";
  }
}

TEST(DatasetCheckpoint, ACheckpointOfAnotherPipelineOrOverShardsIsRefused) {
  const ScratchDir dir("ds_checkpoint_other");
  write_hdf5_dataset(dir);
  dir.write("raw/sub-03.npy", "not an npy file");
  ASSERT_EQ(run_cli("run ds.pipe -q --checkpoint ck", dir.path()).exit_code, 2);
  const auto kept = tree(dir / "ck");
  CliResult r = run_cli("run ds.pipe -q --checkpoint ck --set surrogates.n=30", dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "it was made by another dataset or pipeline")) << r.err;
  EXPECT_TRUE(contains(r.err, "30")) << r.err;
  EXPECT_EQ(without_lock(tree(dir / "ck")), without_lock(kept));
  r = run_cli("run ds.pipe -q --checkpoint ck --shard 0/2 --out s0", dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--checkpoint")) << r.err;
}

// --- shards and merge ---

TEST(ShardSafety, AShardsFolderIsCheckedAndLockedLikeAnyOutputFolder) {
  const ScratchDir dir("shard_folder");
  write_hdf5_dataset(dir, 1);
  fs::create_directories(dir / "s");
  testing::make_fifo(dir / "s" / "batches.bin");
  CliResult r = run_cli("run ds.pipe -q --shard 0/1 --out s", dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "named pipe")) << r.err;
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(dir / "s" / "batches.bin")));

  fs::remove(dir / "s" / "batches.bin");
  {
    OutputFolders held;
    held.hold({dir / "s"});  // another run writing there
    r = run_cli("run ds.pipe -q --shard 0/1 --out s", dir.path());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(contains(r.err, "another pacflow run")) << r.err;
  }
  EXPECT_EQ(run_cli("run ds.pipe -q --shard 0/1 --out s", dir.path()).exit_code, 0);
}

TEST(ShardSafety, InterruptingAReRunOfAFinishedShardLeavesItWhole) {
  const ScratchDir dir("shard_rerun");
  dir.write("short.pipe", "source synthetic epochs=2 channels=4 n_times=1024 seed=1\n"
                          "stage bandpass pha=4:12:3 amp=60:120:3\nstage hilbert\nstage mi\nsink npy dir=out\n");
  dir.write("long.pipe", "source synthetic epochs=4000 channels=4 n_times=1024 seed=1\n"
                         "stage bandpass pha=4:12:3 amp=60:120:3\nstage hilbert\nstage mi\nsink npy dir=out\n");
  ASSERT_EQ(run_cli("run short.pipe -q --shard 0/2 --out s", dir.path()).exit_code, 0);
  const auto before = tree(dir / "s");
  ASSERT_TRUE(before.count("shard.json"));
  CliProcess rerun({"run", "long.pipe", "-q", "--batch", "4", "--shard", "0/2", "--out", "s"}, dir.path());
  ASSERT_TRUE(eventually([&] { return has_temporary(dir / "s"); }, 60s * kSanitizerSlowdown)) << rerun.err_so_far();
  rerun.send(SIGINT);
  const auto result = rerun.wait_for(10s * kSanitizerSlowdown);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->exit_code, 130) << result->err;
  EXPECT_TRUE(contains(result->err, "files of earlier runs are as they were")) << result->err;
  EXPECT_EQ(without_lock(tree(dir / "s")), before);
}

// Two shards of a three-recording dataset, into s0 and s1.
void shard_dataset(const ScratchDir& dir) {
  write_hdf5_dataset(dir);
  ASSERT_EQ(run_cli("run ds.pipe -q --shard 0/2 --out s0", dir.path()).exit_code, 0);
  ASSERT_EQ(run_cli("run ds.pipe -q --shard 1/2 --out s1", dir.path()).exit_code, 0);
}

TEST(ShardSafety, ADatasetMergeChecksEveryListedFileAndIsAllOrNothing) {
  const ScratchDir dir("merge_transaction");
  shard_dataset(dir);
  const std::string pac_z = read_file(dir / "s1" / "sub-02" / "pac_z.npy");
  fs::remove(dir / "s1" / "sub-02" / "pac_z.npy");
  CliResult r = run_cli("merge out s0 s1", dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "pac_z.npy")) << r.err;
  EXPECT_TRUE(tree(dir / "out").empty()) << "a merge that failed wrote something";

  std::ofstream(dir / "s1" / "sub-02" / "pac_z.npy", std::ios::binary) << pac_z;
  r = run_cli("merge out s0", dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "shard 1/2 is missing")) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out" / "recordings.h5"));

  r = run_cli("merge out s0 s1", dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "out" / "recordings.h5"));
  EXPECT_EQ(read_file(dir / "out" / "sub-02" / "pac_z.npy"), pac_z);
}

TEST(ShardSafety, AMergeCopiesOnlyTheListedFilesAndNeverThroughALink) {
  const ScratchDir dir("merge_links");
  shard_dataset(dir);
  dir.write("s0/sub-01/unlisted.txt", "not the shard's");
  CliResult r = run_cli("merge out s0 s1", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out" / "sub-01" / "unlisted.txt"));
  EXPECT_TRUE(fs::exists(dir / "out" / "sub-01" / "pac.npy"));

  // A listed file swapped for a link to someone's private file with the same bytes.
  fs::create_directories(dir / "private");
  fs::copy_file(dir / "s0" / "sub-01" / "pac.npy", dir / "private" / "secret.npy");
  fs::permissions(dir / "private" / "secret.npy", fs::perms::owner_read | fs::perms::owner_write);
  fs::remove(dir / "s0" / "sub-01" / "pac.npy");
  fs::create_symlink(dir / "private" / "secret.npy", dir / "s0" / "sub-01" / "pac.npy");
  r = run_cli("merge out2 s0 s1", dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "is a symbolic link")) << r.err;
  EXPECT_TRUE(tree(dir / "out2").empty());
}

// One byte flipped where a merge reads: in the batches, in a listed file, in the record.
TEST(ShardSafety, AFlippedByteAnywhereInAShardIsRefusedNamingTheFile) {
  const ScratchDir dir("merge_flipped");
  shard_dataset(dir);
  const auto flip = [&](const fs::path& file, std::streamoff at) {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(at);
    const char c = static_cast<char>(f.get());
    f.seekp(at);
    f.put(static_cast<char>(c ^ 0x10));
  };
  for (const auto& [file, expected] : std::vector<std::pair<std::string, std::string>>{
           {"s0/batches.bin", "batches.bin: damaged"},
           {"s0/sub-01/pac.npy", "its checksum is not what"},
           {"s1/shard.json", "shard.json: a damaged or edited shard record"}}) {
    const std::string original = read_file(dir / file);
    flip(dir / file, static_cast<std::streamoff>(original.size() / 2));
    const CliResult r = run_cli("merge out s0 s1", dir.path());
    EXPECT_EQ(r.exit_code, 2) << file << ": " << r.err;
    EXPECT_TRUE(contains(r.err, expected)) << r.err;
    EXPECT_TRUE(tree(dir / "out").empty()) << file;
    std::ofstream(dir / file, std::ios::binary) << original;
  }
}

TEST(ShardSafety, AFifoWhereBatchesBelongIsRefusedAtOnce) {
  const ScratchDir dir("merge_fifo");
  shard_dataset(dir);
  fs::remove(dir / "s0" / "batches.bin");
  testing::make_fifo(dir / "s0" / "batches.bin");
  CliProcess merge({"merge", "out", "s0", "s1"}, dir.path());
  const auto r = merge.wait_for(20s * kSanitizerSlowdown);
  ASSERT_TRUE(r) << "merge hung on a FIFO";
  EXPECT_EQ(r->exit_code, 2) << r->err;
  EXPECT_TRUE(contains(r->err, "named pipe")) << r->err;
}

// Records edited and sealed again (a forged checksum) are still checked: no crash, no allocation
// sized by a claim, one clear message.
TEST(ShardSafety, EditedShardRecordsAreRefusedWithoutCrashingOrAllocating) {
  const ScratchDir dir("merge_edited");
  shard_dataset(dir);
  const std::string original = read_file(dir / "s0" / "shard.json");
  const auto edited = [&](const std::function<void(json&)>& edit) {
    json record = json::parse(original);
    edit(record);
    std::ofstream(dir / "s0" / "shard.json") << sealed(record).dump(2);
    CliProcess merge({"merge", "out", "s0", "s1"}, dir.path());
    const auto r = merge.wait_for(20s * kSanitizerSlowdown);
    EXPECT_TRUE(r) << "merge hung";
    EXPECT_LT(merge.peak_rss_kib(), kMergePeakKiB) << "merge allocated what the record claims";
    return r ? *r : CliResult{};
  };
  for (const auto& [edit, expected] : std::vector<std::pair<std::function<void(json&)>, std::string>>{
           {[](json& m) { m["shards"] = 0; }, "\"shards\" is 0"},
           {[](json& m) { m["shard"] = -1; }, "\"shard\" is -1"},
           {[](json& m) { m["shards"] = 2147483647; }, "different runs"},
           {[](json& m) { m["batches"] = "many"; }, "\"batches\" is \"many\""},
           {[](json& m) { m["files"][0]["path"] = "../../etc/passwd"; }, "is not a file inside the shard's folder"},
           {[](json& m) { m.erase("plan"); }, "no recipe or plan"}}) {
    const CliResult r = edited(edit);
    EXPECT_EQ(r.exit_code, 2) << expected << ": " << r.err;
    EXPECT_TRUE(contains(r.err, expected)) << r.err;
  }
  EXPECT_TRUE(tree(dir / "out").empty());
}

TEST(ShardSafety, AMergeOfOneShardOfMillionsSaysWhichIsMissingWithoutSizingItselfByThem) {
  const ScratchDir dir("merge_many");
  write_hdf5_dataset(dir, 1);
  ASSERT_EQ(run_cli("run ds.pipe -q --shard 0/4000000 --out s0", dir.path()).exit_code, 0);
  CliProcess merge({"merge", "out", "s0"}, dir.path());
  const auto r = merge.wait_for(20s * kSanitizerSlowdown);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->exit_code, 2) << r->err;
  EXPECT_TRUE(contains(r->err, "shard 1/4000000 is missing")) << r->err;
  EXPECT_LT(merge.peak_rss_kib(), kMergePeakKiB);
}

TEST(ShardSafety, ShardsOfAPipeNamedByARelativePathMergeFromAnywhere) {
  const ScratchDir dir("shard_relative");
  fs::create_directories(dir / "study");
  dataset_write_recording(dir / "study" / "rec.npy", 2, 1024, 1);
  dir.write("study/x.pipe", std::string("source npy path=rec.npy fs=512\n") + kDatasetStages + "sink npy dir=out\n");
  ASSERT_EQ(run_cli("run x.pipe -q --shard 0/2 --out ../s0", dir / "study").exit_code, 0);
  ASSERT_EQ(run_cli("run study/x.pipe -q --shard 1/2 --out s1", dir.path()).exit_code, 0);
  const CliResult r = run_cli("merge merged s0 s1", dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "merged" / "pac_z.npy"));
}

TEST(ShardSafety, AnEmptyShardIsRefusedNotRunUnsharded) {
  const ScratchDir dir("shard_empty");
  write_hdf5_dataset(dir, 1);
  const CliResult r = run_cli("run ds.pipe -q --shard '' --out s", dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--shard \"\"")) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

// --- limits ---

TEST(CliLimits, AFileSizeLimitFailsLikeAFullDiskLeavingNoTemporary) {
  const ScratchDir dir("file_size_limit");
  dir.write("p.pipe", "source synthetic epochs=40 channels=4 n_times=1024 seed=1\n"
                      "stage bandpass pha=4:12:3 amp=60:120:3\nstage hilbert\nstage mi\nsink npy dir=out\n");
  // From a shell, as a user's `ulimit -f` gives it: SIGXFSZ at its default, which would kill.
  const CliResult r = testing::run_program("/bin/bash", fmt::format("-c 'ulimit -f 1 && exec \"{}\" run p.pipe -q'", PACFLOW_CLI),
                                           dir.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "File too large")) << r.err;
  EXPECT_FALSE(has_temporary(dir / "out"));
  EXPECT_FALSE(fs::exists(dir / "out" / "pac.npy"));
}

TEST(DatasetSafety, ARowThatIsAFifoOrAFolderIsNamedForWhatItIs) {
  const ScratchDir dir("ds_row_kinds");
  write_hdf5_dataset(dir, 2);
  fs::remove(dir / "raw" / "sub-02.npy");
  testing::make_fifo(dir / "raw" / "sub-02.npy");
  CliResult r = run_cli("run ds.pipe -q", dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "subjects.tsv:3: recording sub-02")) << r.err;
  EXPECT_TRUE(contains(r.err, "is a named pipe (FIFO)")) << r.err;
  fs::remove(dir / "raw" / "sub-02.npy");
  fs::create_directories(dir / "raw" / "sub-02.npy");
  r = run_cli("run ds.pipe -q", dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "is a directory")) << r.err;
}

}  // namespace
}  // namespace pacflow
