// The engine's output safety (engine/output_checks.hpp, output_set.hpp, output_folders.hpp): what
// may be an output, how a set of outputs moves into place together, how a commit a killed process
// left half done is completed, and how a folder is held by one run at a time.
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/atomic_file.hpp"
#include "engine/checkpoint.hpp"
#include "engine/errors.hpp"
#include "engine/json_text.hpp"
#include "engine/output_checks.hpp"
#include "engine/output_folders.hpp"
#include "engine/output_set.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/special_files.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::ScratchDir;

// The message check_output_target gives for `path`, or "" when it accepts it.
std::string refusal(const fs::path& path) {
  try {
    check_output_target(path);
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A process id that belonged to a process which has exited (its child, reaped).
long dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

TEST(OutputChecks, WhatIsNotARegularFileIsRefusedNamingWhatItIs) {
  const ScratchDir dir("output_checks");
  EXPECT_EQ(refusal(dir / "absent.npy"), "");
  EXPECT_EQ(refusal(dir / "new" / "folder" / "absent.npy"), "");
  dir.write("file.npy", "x");
  EXPECT_EQ(refusal(dir / "file.npy"), "");

  testing::make_fifo(dir / "fifo");
  EXPECT_TRUE(contains(refusal(dir / "fifo"), "fifo: is a named pipe (FIFO)")) << refusal(dir / "fifo");
  fs::create_directory(dir / "folder");
  EXPECT_TRUE(contains(refusal(dir / "folder"), "folder: is a directory")) << refusal(dir / "folder");
  EXPECT_TRUE(contains(refusal(dir / "file.npy" / "below.npy"), "file.npy is a file, not a folder"))
      << refusal(dir / "file.npy" / "below.npy");
  fs::create_symlink(dir / "nowhere", dir / "dangling");
  EXPECT_TRUE(contains(refusal(dir / "dangling"), "which does not exist")) << refusal(dir / "dangling");
  fs::create_symlink(dir / "loop_b", dir / "loop_a");
  fs::create_symlink(dir / "loop_a", dir / "loop_b");
  EXPECT_TRUE(contains(refusal(dir / "loop_a"), "too many levels of symbolic links")) << refusal(dir / "loop_a");
  // A link to a FIFO is judged by what it points to.
  fs::create_symlink(dir / "fifo", dir / "to_fifo");
  EXPECT_TRUE(contains(refusal(dir / "to_fifo"), "is a named pipe (FIFO)"));
}

TEST(OutputChecks, DeviceNodeIsRefused) {
  const ScratchDir dir("output_checks_device");
  if (const std::string why = testing::make_char_device(dir / "null", 1, 3); !why.empty()) GTEST_SKIP() << why;
  EXPECT_TRUE(contains(refusal(dir / "null"), "null: is a character device")) << refusal(dir / "null");
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

// What a process killed between its journal and its last rename leaves: one file moved, one still
// under its temporary name, and the journal. The next holder of the folder finishes the moves.
TEST(OutputFolders, HalfDoneCommitOfAKilledProcessIsCompletedBeforeAnythingElse) {
  const ScratchDir dir("output_repair");
  const long pid = dead_pid();
  const fs::path folder = fs::canonical(dir.path());
  dir.write("a.npy", "new a");  // already moved
  dir.write("b.npy", "old b");
  const std::string temp_b = fmt::format(".b.npy.tmp-{}-0000beef", pid);
  dir.write(temp_b, "new b");
  const nlohmann::json journal = {{"pacflow_commit", 1},
                                  {"pid", pid},
                                  {"moves",
                                   {{{"from", (folder / fmt::format(".a.npy.tmp-{}-0000abcd", pid)).string()},
                                     {"to", (folder / "a.npy").string()}},
                                    {{"from", (folder / temp_b).string()}, {"to", (folder / "b.npy").string()}}}}};
  dir.write(kCommitJournal, json_text(journal));
  const OutputFolders folders({dir / "c.npy"});
  EXPECT_EQ(read_file(dir / "a.npy"), "new a");
  EXPECT_EQ(read_file(dir / "b.npy"), "new b");
  EXPECT_FALSE(fs::exists(dir / kCommitJournal));
  ASSERT_EQ(folders.notes().size(), 1u);
  EXPECT_TRUE(contains(folders.notes()[0], "completed the commit of an earlier run")) << folders.notes()[0];
}

TEST(OutputFolders, DamagedJournalIsRefusedNamingIt) {
  const ScratchDir dir("output_repair_damaged");
  dir.write(kCommitJournal, R"({"pacflow_commit": 1, "moves": [{"from": "/etc/passwd", "to": "/tmp/x"}]})");
  try {
    const OutputFolders folders({dir / "c.npy"});
    FAIL() << "a journal naming files that are not temporaries of their targets was followed";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), "a damaged commit journal")) << e.what();
    EXPECT_TRUE(contains(e.what(), "remove it to give up")) << e.what();
  }
  EXPECT_TRUE(fs::exists("/etc/passwd"));
  dir.write(kCommitJournal, std::string(100, '[') + std::string(100, ']'));
  EXPECT_THROW(OutputFolders({dir / "c.npy"}), InputError);
}

TEST(OutputFolders, TemporariesOfProcessesThatAreGoneAreRemovedOthersKept) {
  const ScratchDir dir("output_stale");
  const long pid = dead_pid();
  dir.write(fmt::format(".pac.npy.tmp-{}-0123abcd", pid), "left by a kill");
  dir.write(fmt::format(".pac.npy.tmp-{}-0123abcd", static_cast<long>(::getpid())), "ours");
  dir.write(".pac.npy.tmp-1-0123abcd", "init's: alive");
  dir.write(".hidden", "not a temporary");
  const OutputFolders folders({dir / "pac.npy"});
  EXPECT_FALSE(fs::exists(dir / fmt::format(".pac.npy.tmp-{}-0123abcd", pid)));
  EXPECT_TRUE(fs::exists(dir / fmt::format(".pac.npy.tmp-{}-0123abcd", static_cast<long>(::getpid()))));
  EXPECT_TRUE(fs::exists(dir / ".pac.npy.tmp-1-0123abcd"));
  EXPECT_TRUE(fs::exists(dir / ".hidden"));
  ASSERT_EQ(folders.notes().size(), 1u);
  EXPECT_TRUE(contains(folders.notes()[0], "removed 1 temporary file of runs that were killed")) << folders.notes()[0];
}

// A run killed while it replaced its checkpoint record leaves the record's temporary: the next run
// on that checkpoint removes it, so the folder can go once the outputs are committed.
TEST(OutputFolders, ACheckpointRecordTemporaryOfAKilledRunIsRemoved) {
  const ScratchDir dir("checkpoint_stale");
  const std::string temp = fmt::format(".checkpoint.json.tmp-{}-00c0ffee", dead_pid());
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
    EXPECT_TRUE(contains(e.what(), "cannot write into the output folder: Read-only file system")) << e.what();
  }
}

}  // namespace
}  // namespace pacflow
