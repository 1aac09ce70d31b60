// The files of an earlier run that a run may name and remove: only those the earlier result.json
// lists inside its folder, that are still files, that are not this run's and not pacflow's own.
#include <filesystem>
#include <gtest/gtest.h>

#include "engine/io/run_files.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;

TEST(RunFiles, StaleFilesAreOnlyTheListedFilesInsideTheFolderThatThisRunDoesNotWrite) {
  testing::ScratchDir dir("run_files_stale");
  const fs::path out = dir / "out";
  fs::create_directories(out / "sub");
  for (const char* name : {"old.npy", "kept.npy", "mine.txt", ".pacflow.lock", "sub/old.png"})
    dir.write(std::string("out/") + name, "x");
  dir.write("outside.txt", "x");
  fs::create_directory(out / "folder");
  fs::create_directory(dir / "elsewhere");
  dir.write("elsewhere/victim.txt", "x");
  fs::create_directory_symlink(dir / "elsewhere", out / "linked");
  const json files = json::array({
      {{"path", "old.npy"}}, {{"path", "kept.npy"}}, {{"path", "result.json"}}, {{"path", "gone.npy"}},
      {{"path", "../outside.txt"}}, {{"path", (dir / "outside.txt").string()}}, {{"path", "folder"}},
      {{"path", ".pacflow.lock"}}, {{"path", "sub/old.png"}}, {{"path", "./old.npy"}},
      {{"path", "linked/victim.txt"}}});
  dir.write("out/result.json", json{{"files", files}}.dump());

  const std::vector<StaleFiles> stale = find_stale_files({out / "kept.npy", out / "result.json"});
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_EQ(stale[0].folder, out);
  EXPECT_EQ(stale[0].names(), (std::vector<std::string>{"old.npy", "sub/old.png"}));
  EXPECT_EQ(stale_warning(stale[0], false),
            out.string() + ": 2 files of an earlier run that this run does not write: old.npy, sub/old.png; remove "
                           "them or run with --clean");

  EXPECT_TRUE(remove_stale_files(stale).empty());
  EXPECT_FALSE(fs::exists(out / "old.npy"));
  EXPECT_FALSE(fs::exists(out / "sub/old.png"));
  for (const char* kept : {"kept.npy", "mine.txt", ".pacflow.lock", "result.json", "folder", "sub"})
    EXPECT_TRUE(fs::exists(out / kept)) << kept;
  EXPECT_TRUE(fs::exists(dir / "outside.txt"));
  EXPECT_TRUE(fs::exists(dir / "elsewhere/victim.txt")) << "listed, but outside the folder once links are resolved";
}

// --clean finds the files when the run starts and removes them when it ends: a link swapped in
// between (for a folder on the way, or for the file itself) cannot make it remove another file.
TEST(RunFiles, ALinkSwappedInAfterTheFilesWereFoundCannotRedirectTheirRemoval) {
  testing::ScratchDir dir("run_files_swapped");
  const fs::path out = dir / "out";
  fs::create_directories(out / "sub");
  dir.write("out/sub/old.npy", "x");
  dir.write("out/old.npy", "x");
  dir.write("out/result.json", json{{"files", json::array({{{"path", "sub/old.npy"}}, {{"path", "old.npy"}}})}}.dump());
  fs::create_directories(dir / "elsewhere");
  dir.write("elsewhere/old.npy", "victim");
  const std::vector<StaleFiles> stale = find_stale_files({out / "pac.npy"});
  ASSERT_EQ(stale.size(), 1u);
  ASSERT_EQ(stale[0].names(), (std::vector<std::string>{"sub/old.npy", "old.npy"}));

  fs::rename(out / "sub", out / "sub.moved");
  fs::create_directory_symlink(dir / "elsewhere", out / "sub");
  fs::rename(out / "old.npy", out / "old.kept");  // kept: its inode cannot be reused by the link
  fs::create_symlink(dir / "elsewhere" / "old.npy", out / "old.npy");
  const std::vector<std::string> warnings = remove_stale_files(stale);
  EXPECT_EQ(testing::read_file(dir / "elsewhere" / "old.npy"), "victim");
  EXPECT_TRUE(fs::is_symlink(out / "old.npy")) << "a file that is no longer the one found is left";
  EXPECT_EQ(warnings.size(), 2u);
  EXPECT_TRUE(fs::exists(out / "sub.moved" / "old.npy"));
}

// The run's own inputs are never stale, whatever an earlier report lists: by identity, through a
// link too.
TEST(RunFiles, TheRunsInputsAreNeverStale) {
  testing::ScratchDir dir("run_files_inputs");
  const fs::path out = dir / "out";
  fs::create_directories(out);
  dir.write("out/rec.npy", "recording");
  dir.write("out/p.pipe", "pipeline");
  dir.write("data.npy", "linked recording");
  fs::create_symlink(dir / "data.npy", out / "link.npy");
  dir.write("out/old.npy", "x");
  dir.write("out/result.json", json{{"files", json::array({{{"path", "rec.npy"}}, {{"path", "p.pipe"}},
                                                          {{"path", "link.npy"}}, {{"path", "old.npy"}}})}}.dump());
  const std::vector<StaleFiles> stale =
      find_stale_files({out / "pac.npy"}, {dir / "out/rec.npy", dir / "out/p.pipe", dir / "data.npy"});
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_EQ(stale[0].names(), (std::vector<std::string>{"old.npy"}));
}

TEST(RunFiles, AReportThatIsNotOursNamesNothing) {
  testing::ScratchDir dir("run_files_foreign");
  fs::create_directories(dir / "out");
  dir.write("out/old.npy", "x");
  for (const std::string report : {"not json", R"({"files": "old.npy"})", R"(["old.npy"])", R"({"outputs": {}})"}) {
    dir.write("out/result.json", report);
    EXPECT_TRUE(find_stale_files({dir / "out" / "pac.npy"}).empty()) << report;
  }
}

TEST(RunFiles, ListsPathsRelativeToTheReportsFolderOrAbsolute) {
  const json files = json::array({{{"path", "/data/out/pac.npy"}, {"sink", "npy"}, {"what", ""}},
                                  {{"path", "/data/plots/c.png"}, {"sink", "png"}, {"what", ""}},
                                  {{"path", "/data/out/sub/../t.json"}, {"sink", "--trace"}, {"what", ""}}});
  const json relative = files_relative_to(files, "/data/out");
  EXPECT_EQ(relative[0]["path"], "pac.npy");
  EXPECT_EQ(relative[1]["path"], "/data/plots/c.png");
  EXPECT_EQ(relative[2]["path"], "t.json");
  EXPECT_EQ(relative[0]["sink"], "npy");
}

}  // namespace
}  // namespace pacflow
