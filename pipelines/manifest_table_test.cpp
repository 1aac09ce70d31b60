// The dataset's table (pipelines/manifest_table.hpp): rows read with their reader and typed
// parameters, paths seen from the working directory; every malformed table refused at its line and
// column.
#include "pipelines/manifest_table.hpp"

#include <filesystem>
#include <fstream>
#include <functional>
#include <unistd.h>

#include <gtest/gtest.h>

#include "engine/api/errors.hpp"
#include "stages/builtin.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;

class ManifestTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pacflow_manifest_" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "data");
  }
  void TearDown() override { fs::remove_all(dir_); }

  ManifestTable read(const std::string& text, std::optional<std::string> reader = std::nullopt) {
    std::ofstream(dir_ / "data" / "subjects.tsv") << text;
    return read_manifest(dir_ / "data" / "subjects.tsv", reader, stages::builtin_registry());
  }
  std::string error_of(const std::string& text) {
    try {
      read(text);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  }
  fs::path dir_;
};

TEST_F(ManifestTableTest, RowsGetTheirReaderTypedParametersAndPathsBesideTheTable) {
  const ManifestTable table = read(
      "# a dataset\n"
      "id\tpath\tfs\tevents\treader\n"
      "sub-01\tsub-01.npy\t512\t\t\n"
      "\n"
      "sub-02\traw/sub-02.EDF\t\t[go, nogo]\t\n"
      "sub_03.b\tsub-03.bin\t1000.5\t\tnpy\r\n");
  ASSERT_EQ(table.recordings.size(), 3u);
  const auto& first = table.recordings[0];
  EXPECT_EQ(first.id, "sub-01");
  EXPECT_EQ(first.reader, "npy");
  EXPECT_EQ(first.line, 3);
  EXPECT_EQ(first.params, (json{{"path", (dir_ / "data" / "sub-01.npy").string()}, {"fs", 512}}));
  EXPECT_EQ(table.recordings[1].reader, "edf");  // by extension, whatever its case
  EXPECT_EQ(table.recordings[1].params["events"], (json{"go", "nogo"}));
  EXPECT_FALSE(table.recordings[1].params.contains("fs"));  // empty: the source's default
  EXPECT_EQ(table.recordings[1].params["path"], (dir_ / "data" / "raw" / "sub-02.EDF").string());
  EXPECT_EQ(table.recordings[2].reader, "npy");  // named in its row
  EXPECT_EQ(table.recordings[2].params["fs"], 1000.5);
  EXPECT_EQ(read("id\tpath\nx\tx.dat\n", "hdf5").recordings[0].reader, "hdf5");  // the manifest's reader=
  EXPECT_EQ(read("id\tpath\nx\tx.vhdr\n").recordings[0].reader, "brainvision");    // a BrainVision header
}

TEST_F(ManifestTableTest, MalformedTablesAreRefusedAtTheirLineAndColumn) {
  const std::string file = (dir_ / "data" / "subjects.tsv").string();
  EXPECT_EQ(error_of("id\tfs\nsub-01\t512\n"),
            file + ":1:1: the header has no path column (it names: id, fs); a dataset's table needs id and path");
  EXPECT_EQ(error_of("id\tpath\tpath\n"), file + ":1:3: column \"path\" is named twice");
  EXPECT_EQ(error_of("# only a comment\n"), file + ": no header line (id, path, …)");
  EXPECT_EQ(error_of("id\tpath\n"), file + ": no recording: one row per recording after the header");
  EXPECT_EQ(error_of("id\tpath\tfs\nsub-01\ta.npy\n"),
            file + ":2:1: 2 cells where the header names 3 columns (cells are separated by tabs)");
  EXPECT_EQ(error_of("id\tpath\na\ta.npy\na\tb.npy\n"), file + ":3:1: id \"a\" is given twice");
  EXPECT_NE(error_of("id\tpath\nsub/01\ta.npy\n").find(":2:1: id \"sub/01\": a recording's id names its results' "
                                                      "folder"),
            std::string::npos);
  EXPECT_EQ(error_of("id\tpath\n..\ta.npy\n").find("(no error)"), std::string::npos);
  EXPECT_EQ(error_of("id\tpath\na\t\n"), file + ":2:2: recording a has no path");
  EXPECT_NE(error_of("id\tpath\na\ta.wav\n").find(":2:2: a.wav: no reader for this kind of file"), std::string::npos);
  EXPECT_EQ(error_of("id\tpath\treader\na\ta.npy\tsynthetic\n"),
            file + ":2:3: reader \"synthetic\" is not a source that reads a file (npy, edf, brainvision, hdf5)");
  EXPECT_EQ(error_of("id\tpath\tcolour\na\ta.npy\tblue\n"),
            file + ":2:3: column \"colour\" is not a parameter of the npy source");
  EXPECT_NE(error_of("id\tpath\tfs\na\ta.npy\t[1, 2\n").find(":2:3"), std::string::npos);
  EXPECT_EQ(error_of(std::string("id\tpath\na\ta.npy\0\n", 17)), file + ":2:8: a NUL byte: a dataset's table is tab-separated text");
  try {
    read_manifest(dir_ / "nothing.tsv", std::nullopt, stages::builtin_registry());
    FAIL() << "a missing table";
  } catch (const MissingFileError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read the dataset's table"), std::string::npos) << e.what();
  }
}

// Ids that are pacflow's own names in an output folder (its lock, journals and temporaries start
// with '.', the run's report) would break every later run into that folder.
TEST_F(ManifestTableTest, IdsThatArePacflowsOwnNamesAreRefusedAtTheirLine) {
  const std::string file = (dir_ / "data" / "subjects.tsv").string();
  for (const std::string id : {".pacflow.lock", ".pacflow-commit.json", ".x", "result.json"})
    EXPECT_NE(error_of("id\tpath\n" + id + "\ta.npy\n").find(file + ":2:1: id \"" + id + "\""), std::string::npos) << id;
}

// A spreadsheet's byte-order mark before the header is no part of the first column's name.
TEST_F(ManifestTableTest, AByteOrderMarkBeforeTheHeaderIsSkipped) {
  EXPECT_EQ(read("\xEF\xBB\xBFid\tpath\nsub-01\ta.npy\n").recordings.at(0).id, "sub-01");
}

}  // namespace
}  // namespace pacflow
