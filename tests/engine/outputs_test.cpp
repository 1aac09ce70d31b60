// The engine's output safety (engine/io/output_checks.hpp, output_set.hpp, output_folders.hpp): what
// may be an output, how a set of outputs moves into place together, how a commit a killed process
// left half done is completed, and how a folder is held by one run at a time.
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/api/errors.hpp"
#include "engine/api/json_text.hpp"
#include "engine/api/reserved_names.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/io/output_checks.hpp"
#include "engine/io/output_folders.hpp"
#include "engine/io/output_set.hpp"
#include "engine/run/checkpoint.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/special_files.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;
using testing::contains;
using testing::read_file;
using testing::ScratchDir;

// The message check_output_target gives for `path`, or "" when it accepts it.
std::string outputs_refusal(const fs::path& path) {
  try {
    check_output_target(path);
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

// A process id that belonged to a process which has exited (its child, reaped).
long dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

TEST(OutputChecks, WhatIsNotARegularFileIsRefusedNamingWhatItIs) {
  const ScratchDir dir("output_checks");
  EXPECT_EQ(outputs_refusal(dir / "absent.npy"), "");
  EXPECT_EQ(outputs_refusal(dir / "new" / "folder" / "absent.npy"), "");
  dir.write("file.npy", "x");
  EXPECT_EQ(outputs_refusal(dir / "file.npy"), "");

  testing::make_fifo(dir / "fifo");
  EXPECT_TRUE(contains(outputs_refusal(dir / "fifo"), "fifo: is a named pipe (FIFO)")) << outputs_refusal(dir / "fifo");
  fs::create_directory(dir / "folder");
  EXPECT_TRUE(contains(outputs_refusal(dir / "folder"), "folder: is a directory")) << outputs_refusal(dir / "folder");
  EXPECT_TRUE(contains(outputs_refusal(dir / "file.npy" / "below.npy"), "file.npy is a file, not a folder"))
      << outputs_refusal(dir / "file.npy" / "below.npy");
  fs::create_symlink(dir / "nowhere", dir / "dangling");
  EXPECT_TRUE(contains(outputs_refusal(dir / "dangling"), "which does not exist")) << outputs_refusal(dir / "dangling");
  fs::create_symlink(dir / "loop_b", dir / "loop_a");
  fs::create_symlink(dir / "loop_a", dir / "loop_b");
  EXPECT_TRUE(contains(outputs_refusal(dir / "loop_a"), "too many levels of symbolic links")) << outputs_refusal(dir / "loop_a");
  // A link to a FIFO is judged by what it points to.
  fs::create_symlink(dir / "fifo", dir / "to_fifo");
  EXPECT_TRUE(contains(outputs_refusal(dir / "to_fifo"), "is a named pipe (FIFO)"));
}

TEST(OutputChecks, DeviceNodeIsRefused) {
  const ScratchDir dir("output_checks_device");
  if (const std::string why = testing::make_char_device(dir / "null", 1, 3); !why.empty()) GTEST_SKIP() << why;
  EXPECT_TRUE(contains(outputs_refusal(dir / "null"), "null: is a character device")) << outputs_refusal(dir / "null");
}

TEST(OutputChecks, ALinkToARegularFileIsFollowedAndStaysALink) {
  const ScratchDir dir("output_checks_link");
  dir.write("real.json", "old");
  fs::create_symlink("real.json", dir / "link.json");
  EXPECT_EQ(resolved_output(dir / "link.json"), fs::canonical(dir / "real.json"));
  EXPECT_EQ(resolved_output(dir / "plain.json"), fs::absolute(dir / "plain.json"));
  OutputSet set;
  set.add_content(dir / "link.json", "new");
  set.commit();
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_EQ(read_file(dir / "real.json"), "new");
}

TEST(OutputChecks, AnOutputThatIsAnInputOrAnotherOutputIsFoundThroughLinksAndDots) {
  const ScratchDir dir("output_clash");
  dir.write("data.npy", "recording");
  fs::create_directory(dir / "sub");
  fs::create_symlink(dir / "data.npy", dir / "alias.npy");
  fs::create_hard_link(dir / "data.npy", dir / "hard.npy");
  const std::vector<fs::path> inputs{dir / "data.npy"};
  const auto clash = [&](const std::vector<OutputPath>& outputs) {
    const auto found = find_output_clash(outputs, inputs);
    return found ? found->message : "";
  };
  EXPECT_EQ(clash({{dir / "out.npy", "sink \"a\""}}), "");
  for (const fs::path& same : {dir / "sub" / ".." / "data.npy", dir / "alias.npy", dir / "hard.npy"})
    EXPECT_TRUE(contains(clash({{same, "sink \"a\""}}), "would replace the input file")) << same;
  const std::string twice = clash({{dir / "x.npy", "sink \"a\""}, {dir / "sub" / ".." / "x.npy", "sink \"b\""}});
  EXPECT_TRUE(contains(twice, "is also written by sink \"a\"")) << twice;
  const auto index = find_output_clash({{dir / "x.npy", "sink \"a\""}, {dir / "x.npy", "sink \"b\""}}, inputs);
  ASSERT_TRUE(index);
  EXPECT_EQ(index->output, 1u);  // the later writer is named at fault
  const std::string nested = clash({{dir / "x", "sink \"a\""}, {dir / "x" / "y.npy", "sink \"b\""}});
  EXPECT_TRUE(contains(nested, "as a file and as a folder")) << nested;
}

TEST(OutputChecks, NamesPacflowKeepsForItselfAreNoOutputs) {
  const ScratchDir dir("output_reserved");
  for (const std::string& name : {std::string(kOutputLock), std::string(kCommitJournal),
                                 std::string(".x.npy.pacflow-tmp-12-0123abcd")})
    EXPECT_TRUE(contains(outputs_refusal(dir / name), "is a name pacflow keeps for its own bookkeeping")) << name;
  EXPECT_EQ(outputs_refusal(dir / "lock"), "");
  EXPECT_TRUE(lies_inside(dir / "ck" / "x.npy", dir / "ck"));
  EXPECT_TRUE(lies_inside(dir / "out" / ".." / "ck" / "x.npy", dir / "ck"));
  EXPECT_FALSE(lies_inside(dir / "ck2" / "x.npy", dir / "ck"));
}

TEST(OutputSet, NothingMovesBeforeCommitAndAnAbandonedSetLeavesNoTemporary) {
  const ScratchDir dir("output_set");
  dir.write("a.txt", "old a");
  dir.write("b.txt", "old b");
  {
    OutputSet set;
    set.add_content(dir / "a.txt", "new a");
    set.add_content(dir / "b.txt", "new b");
    EXPECT_EQ(read_file(dir / "a.txt"), "old a");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 4);  // 2 + 2 temporaries
  }  // abandoned
  EXPECT_EQ(read_file(dir / "a.txt"), "old a");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 2);
  OutputSet set;
  set.add_content(dir / "a.txt", "new a");
  set.add_content(dir / "b.txt", "new b");
  set.commit();
  EXPECT_EQ(read_file(dir / "a.txt"), "new a");
  EXPECT_EQ(read_file(dir / "b.txt"), "new b");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 2) << "journal left";
}

TEST(OutputSet, AFileWrittenElsewhereIsCopiedAndAKeptOneStays) {
  const ScratchDir out("output_set_out"), elsewhere("output_set_elsewhere");
  const fs::path moved = elsewhere.write("moved.tmp", "moved");
  const fs::path kept = elsewhere.write("partial.npy", "kept");
  OutputSet set;
  set.add(moved, out / "moved.txt");
  set.add(kept, out / "kept.txt", /*keep=*/true);
  set.commit();
  EXPECT_EQ(read_file(out / "moved.txt"), "moved");
  EXPECT_EQ(read_file(out / "kept.txt"), "kept");
  EXPECT_FALSE(fs::exists(moved));
  EXPECT_EQ(read_file(kept), "kept") << "a checkpoint's partial output must outlive the commit";
}

// A process killed after prepare() (its journals written, nothing renamed yet) leaves its journals
// and temporaries: the set is prepared, those files are kept aside while the set is destroyed (as a
// kill would never let it clean up), then put back. Returns every path put back.
std::vector<fs::path> killed_after_prepare(OutputSet& set, const std::vector<fs::path>& folders, const fs::path& aside) {
  set.prepare();
  std::vector<fs::path> kept;
  fs::create_directories(aside);
  for (const fs::path& folder : folders)
    for (const auto& entry : fs::directory_iterator(folder))
      if (reserved_name(entry.path().filename().string()) && entry.path().filename() != kOutputLock) {
        fs::create_hard_link(entry.path(), aside / std::to_string(kept.size()));
        kept.push_back(entry.path());
      }
  return kept;
}

void put_back(const std::vector<fs::path>& kept, const fs::path& aside) {
  for (std::size_t k = 0; k < kept.size(); ++k) fs::rename(aside / std::to_string(k), kept[k]);
}

// Two folders with an earlier run's files, and a set that replaces one file in each.
struct TwoFolders {
  ScratchDir dir{"output_two_folders"};
  fs::path a = fs::canonical(dir.path()) / "a", b = fs::canonical(dir.path()) / "b";
  TwoFolders() {
    fs::create_directories(a);
    fs::create_directories(b);
    std::ofstream(a / "x.npy") << "old x";
    std::ofstream(b / "y.png") << "old y";
  }
  // Prepares the new files in a set, "kills" it, and puts back what the kill would have left.
  std::vector<fs::path> leave_a_killed_commit() {
    std::vector<fs::path> kept;
    {
      OutputSet set;
      set.add_content(a / "x.npy", "new x");
      set.add_content(b / "y.png", "new y");
      kept = killed_after_prepare(set, {a, b}, dir / "aside");
    }
    put_back(kept, dir / "aside");
    return kept;
  }
  std::string x() const { return read_file(a / "x.npy"); }
  std::string y() const { return read_file(b / "y.png"); }
  bool any_journal() const { return fs::exists(a / kCommitJournal) || fs::exists(b / kCommitJournal); }
};

TEST(OutputSet, AKillAfterEveryJournalWasWrittenIsCompletedByTheNextRunIntoAnyOfItsFolders) {
  TwoFolders t;
  const auto kept = t.leave_a_killed_commit();
  ASSERT_EQ(kept.size(), 4u) << "two journals and two temporaries";
  ASSERT_EQ(t.x(), "old x");
  // The kill came after one rename of the two.
  for (const fs::path& p : kept)
    if (p.parent_path() == t.b && p.filename() != kCommitJournal) fs::rename(p, t.b / "y.png");
  const OutputFolders next({t.a / "other.txt"});
  EXPECT_EQ(t.x(), "new x");
  EXPECT_EQ(t.y(), "new y");
  EXPECT_FALSE(t.any_journal());
  ASSERT_FALSE(next.notes().empty());
  EXPECT_TRUE(contains(next.notes()[0], "settled the commit of an earlier run")) << next.notes()[0];
}

TEST(OutputSet, AKillBeforeEveryJournalWasWrittenIsUndoneLeavingTheEarlierFiles) {
  TwoFolders t;
  t.leave_a_killed_commit();
  fs::remove(t.b / kCommitJournal);  // killed after a's journal, before b's
  {
    const OutputFolders into_b({t.b / "other.txt"});  // b has no journal: nothing to settle there
    EXPECT_EQ(t.y(), "old y");
  }
  const OutputFolders into_a({t.a / "other.txt"});
  EXPECT_EQ(t.x(), "old x");
  EXPECT_EQ(t.y(), "old y");
  EXPECT_FALSE(t.any_journal());
  for (const fs::path& folder : {t.a, t.b})
    for (const auto& entry : fs::directory_iterator(folder))
      EXPECT_FALSE(temp_file_writer(entry.path().filename().string()) > 0) << entry.path() << " was left";
}

TEST(OutputSet, AKillWhileRemovingTheJournalsKeepsTheNewFiles) {
  TwoFolders t;
  const auto kept = t.leave_a_killed_commit();
  for (const fs::path& p : kept)  // every rename done, then a's journal removed, then the kill
    if (p.filename() != kCommitJournal) fs::rename(p, p.parent_path() / (p.parent_path() == t.a ? "x.npy" : "y.png"));
  fs::remove(t.a / kCommitJournal);
  const OutputFolders next({t.b / "other.txt"});
  EXPECT_EQ(t.x(), "new x");
  EXPECT_EQ(t.y(), "new y");
  EXPECT_FALSE(t.any_journal());
}

TEST(OutputFolders, DamagedJournalIsRefusedNamingIt) {
  const ScratchDir dir("output_repair_damaged");
  const fs::path folder = fs::canonical(dir.path());
  dir.write("precious.txt", "keep me");
  const nlohmann::json journal = {{"pacflow_commit", 1},
                                  {"id", "1-2"},
                                  {"folders", {folder.string()}},
                                  {"moves", {{{"from", (folder / "precious.txt").string()},
                                              {"to", (folder / "elsewhere.txt").string()}}}}};
  dir.write(kCommitJournal, json_text(journal));
  try {
    const OutputFolders folders({dir / "c.npy"});
    FAIL() << "a journal naming files that are not temporaries of their targets was followed";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), "a damaged commit journal")) << e.what();
    EXPECT_TRUE(contains(e.what(), "is not a temporary of")) << e.what();
    EXPECT_TRUE(contains(e.what(), "remove it to give up")) << e.what();
  }
  EXPECT_EQ(read_file(dir / "precious.txt"), "keep me");
  EXPECT_FALSE(fs::exists(dir / "elsewhere.txt"));
  dir.write(kCommitJournal, std::string(100, '[') + std::string(100, ']'));
  EXPECT_THROW(OutputFolders({dir / "c.npy"}), InputError);
}

TEST(OutputFolders, TemporariesOfProcessesThatAreGoneAreRemovedOthersKept) {
  const ScratchDir dir("output_stale");
  const long pid = dead_pid();
  dir.write(fmt::format(".pac.npy.pacflow-tmp-{}-0123abcd", pid), "left by a kill");
  dir.write(fmt::format(".pac.npy.pacflow-tmp-{}-0123abcd", static_cast<long>(::getpid())), "ours");
  dir.write(".pac.npy.pacflow-tmp-1-0123abcd", "init's: alive");
  dir.write(".hidden", "not a temporary");
  const OutputFolders folders({dir / "pac.npy"});
  EXPECT_FALSE(fs::exists(dir / fmt::format(".pac.npy.pacflow-tmp-{}-0123abcd", pid)));
  EXPECT_TRUE(fs::exists(dir / fmt::format(".pac.npy.pacflow-tmp-{}-0123abcd", static_cast<long>(::getpid()))));
  EXPECT_TRUE(fs::exists(dir / ".pac.npy.pacflow-tmp-1-0123abcd"));
  EXPECT_TRUE(fs::exists(dir / ".hidden"));
  ASSERT_EQ(folders.notes().size(), 1u);
  EXPECT_TRUE(contains(folders.notes()[0], "removed 1 temporary file of runs that were killed")) << folders.notes()[0];
}

// A run killed while it replaced its checkpoint record leaves the record's temporary: the next run
// on that checkpoint removes it, so the folder can go once the outputs are committed.
TEST(OutputFolders, ACheckpointRecordTemporaryOfAKilledRunIsRemoved) {
  const ScratchDir dir("checkpoint_stale");
  const std::string temp = fmt::format(".checkpoint.json.pacflow-tmp-{}-00c0ffee", dead_pid());
  dir.write(temp, "{\"half\": ");
  {
    Checkpoint checkpoint(dir.path(), json::object(), 4, {"npy"});
    EXPECT_FALSE(fs::exists(dir / temp));
    checkpoint.discard();
  }
  EXPECT_FALSE(fs::exists(dir.path()));
}

TEST(OutputFolders, ASecondHolderIsRefusedNamingTheFirstAndTheLockGoesWithTheRun) {
  const ScratchDir dir("output_lock");
  {
    const OutputFolders first({dir / "a" / "x.npy", dir / "b" / "y.png"});
    EXPECT_TRUE(fs::exists(dir / "a" / kOutputLock));
    try {
      const OutputFolders second({dir / "b" / "z.npy"});
      FAIL() << "two holders of one folder";
    } catch (const InputError& e) {
      EXPECT_TRUE(contains(e.what(), "another pacflow run (pid " + std::to_string(::getpid()))) << e.what();
      EXPECT_TRUE(contains(e.what(), "is writing into this folder")) << e.what();
    }
    EXPECT_FALSE(fs::exists(dir / "b" / "z.npy"));
  }
  EXPECT_FALSE(fs::exists(dir / "a" / kOutputLock));
  const OutputFolders again({dir / "b" / "z.npy"});  // free once the first is gone
}

TEST(OutputFolders, AFolderReachedByTwoPathsIsHeldOnce) {
  const ScratchDir dir("output_twice");
  fs::create_directory(dir / "real");
  fs::create_directory_symlink(dir / "real", dir / "alias");
  const OutputFolders folders({dir / "real" / "a.npy", dir / "alias" / "b.npy"});
  EXPECT_EQ(folders.folders().size(), 1u);
}

TEST(OutputFolders, FoldersAFailedRunCreatedAreRemovedWhenEmpty) {
  const ScratchDir dir("output_created");
  {
    const OutputFolders failed({dir / "new" / "deeper" / "x.npy"});
    EXPECT_TRUE(fs::is_directory(dir / "new" / "deeper"));
  }
  EXPECT_FALSE(fs::exists(dir / "new"));
  {
    OutputFolders succeeded({dir / "kept" / "x.npy"});
    succeeded.keep_created();
  }
  EXPECT_TRUE(fs::is_directory(dir / "kept"));
}

TEST(OutputFolders, UnwritableFolderIsRefusedAsBadInput) {
  const ScratchDir dir("output_read_only");
  fs::create_directory(dir / "ro");
  std::string why;
  const auto mount = testing::Mount::read_only(dir / "ro", why);
  if (!mount) GTEST_SKIP() << why;
  try {
    const OutputFolders folders({dir / "ro" / "x.npy"});
    FAIL() << "a read-only folder was taken";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), "cannot write into the folder: Read-only file system")) << e.what();
  }
}

}  // namespace
}  // namespace pacflow
