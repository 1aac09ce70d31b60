// Issue 17, item 8: result.json lists every file the run wrote; files of an earlier run that this run
// does not write are named in a warning, or removed by --clean once the run succeeded; erpac writes
// its time vector, and the png sink draws erpac.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "engine/io/npy.hpp"
#include "engine/api/reserved_names.hpp"
#include "stages/io/edf/edf_writer.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/support/folder_state.hpp"

namespace pacflow {
namespace {

using nlohmann::json;
using testing::contains;
using testing::folder_contents;
using testing::read_file;
using testing::run_cli;
using testing::ScratchDir;
namespace fs = std::filesystem;

// A small coupled recording [3 epochs][2 channels][512] in.npy, NaN-free unless `nan`.
void write_input(const fs::path& path, bool nan = false) {
  NpyWriter writer(path, {3, 2, 512});
  std::vector<float> row(512);
  for (int s = 0; s < 6; ++s) {
    for (int t = 0; t < 512; ++t) {
      const double slow = std::sin(2 * M_PI * 6 * t / 256.0 + s);
      row[static_cast<std::size_t>(t)] =
          static_cast<float>(slow + (1 + slow) * 0.5 * std::sin(2 * M_PI * 80 * t / 256.0) + 0.1 * std::sin(13.7 * t * (s + 1)));
    }
    if (nan && s == 5) row[100] = NAN;
    writer.append(row.data(), 512);
  }
  writer.commit();
}

// mi and surrogates into npy, png (grid=true: comodulogram_channels.png) and hdf5 sinks in out/.
std::string pipe() {
  return "source npy path=in.npy fs=256 layout=ECT\n"
         "stage bandpass pha=4:8:2 amp=60:100:2\nstage hilbert\nstage mi\nstage surrogates n=10 seed=1\n"
         "sink npy dir=out\nsink png path=out/comodulogram.png\nsink hdf5 path=out/result.h5\n";
}

// The files in `dir` that are not pacflow's bookkeeping (its lock).
std::set<std::string> files_in(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& [name, bytes] : folder_contents(dir))
    if (name != kOutputLock) out.insert(name);
  return out;
}

std::set<std::string> listed(const json& report) {
  std::set<std::string> out;
  for (const auto& f : report.at("files")) out.insert(f.at("path").get<std::string>());
  return out;
}

TEST(Outputs, ResultJsonListsEveryFileTheRunWrote) {
  ScratchDir dir("outputs_listed");
  write_input(dir / "in.npy");
  dir.write("run.pipe", pipe());
  const auto r = run_cli("run run.pipe --trace out/trace.json -q", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_file(dir / "out/result.json"));
  EXPECT_EQ(listed(report), files_in(dir / "out"));
  EXPECT_TRUE(listed(report).contains("comodulogram_channels.png"));
  EXPECT_TRUE(listed(report).contains("trace.json"));
  for (const auto& f : report["files"]) {
    EXPECT_FALSE(f.at("sink").get<std::string>().empty()) << f;
    EXPECT_FALSE(f.at("what").get<std::string>().empty()) << f;
  }
}

// A first run into out/, then a file of the user's own beside its outputs.
void run_once_and_add_a_users_file(const ScratchDir& dir) {
  write_input(dir / "in.npy");
  dir.write("run.pipe", pipe());
  ASSERT_EQ(run_cli("run run.pipe -q", dir.path()).exit_code, 0);
  dir.write("out/notes.txt", "mine");
}

TEST(Outputs, NamesFilesOfAnEarlierRunThatThisRunDoesNotWrite) {
  ScratchDir dir("outputs_stale");
  ASSERT_NO_FATAL_FAILURE(run_once_and_add_a_users_file(dir));
  const auto r = run_cli("run run.pipe -q --set png.grid=false", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string warning = "out: 1 file of an earlier run that this run does not write: comodulogram_channels.png; "
                              "remove it or run with --clean";
  EXPECT_TRUE(contains(r.err, "warning: " + warning)) << r.err;
  EXPECT_FALSE(contains(r.err, "notes.txt")) << r.err;
  const json report = json::parse(read_file(dir / "out/result.json"));
  EXPECT_NE(std::find(report["warnings"].begin(), report["warnings"].end(), warning), report["warnings"].end());
  EXPECT_TRUE(fs::exists(dir / "out/comodulogram_channels.png"));
  EXPECT_FALSE(listed(report).contains("comodulogram_channels.png"));
}

TEST(Outputs, CleanRemovesTheListedStaleFilesAndNothingElse) {
  ScratchDir dir("outputs_clean");
  ASSERT_NO_FATAL_FAILURE(run_once_and_add_a_users_file(dir));
  fs::create_directory(dir / "out/plots");
  const auto r = run_cli("run run.pipe -q --clean --set png.grid=false", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "warning: out: 1 file of an earlier run that this run does not write, removed by --clean "
                              "once this run's outputs are in place: comodulogram_channels.png"))
      << r.err;
  EXPECT_FALSE(fs::exists(dir / "out/comodulogram_channels.png"));
  EXPECT_EQ(read_file(dir / "out/notes.txt"), "mine");
  EXPECT_TRUE(fs::is_directory(dir / "out/plots"));
  std::set<std::string> expected = listed(json::parse(read_file(dir / "out/result.json")));
  expected.insert({"notes.txt", "plots"});  // the user's own
  EXPECT_EQ(files_in(dir / "out"), expected);
  // Nothing stale is left: the next run says nothing about earlier files.
  const auto again = run_cli("run run.pipe -q --set png.grid=false", dir.path());
  EXPECT_FALSE(contains(again.err, "earlier run")) << again.err;
}

TEST(Outputs, AFailedRunWithCleanRemovesNothing) {
  ScratchDir dir("outputs_clean_failed");
  write_input(dir / "in.npy");
  write_input(dir / "bad.npy", /*nan=*/true);
  dir.write("run.pipe", pipe());
  ASSERT_EQ(run_cli("run run.pipe -q", dir.path()).exit_code, 0);
  const auto before = folder_contents(dir / "out");
  const auto r = run_cli("run run.pipe -q --clean --set png.grid=false --set source.path=bad.npy", dir.path());
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "NaN")) << r.err;
  EXPECT_EQ(folder_contents(dir / "out"), before);
}

// EDF+ with "stim" events every 2 s from 1 s, 4 channels at 256 Hz carrying 6 Hz -> 80 Hz coupling.
void write_events_recording(const fs::path& path) {
  std::vector<stages::EdfSignalSpec> signals;
  for (const char* label : {"Fz", "Cz"}) signals.push_back({label});
  stages::EdfWriter writer(path.string(), false, signals);
  for (int r = 0; r < 30; ++r) {
    std::vector<std::vector<double>> record(signals.size());
    for (std::size_t c = 0; c < signals.size(); ++c)
      for (int i = 0; i < 256; ++i) {
        const double t = r + i / 256.0;
        const double slow = std::sin(2 * M_PI * 6 * t + 0.3 * r);
        record[c].push_back(40 * slow + 20 * (1 + slow) * std::sin(2 * M_PI * 80 * t) + 5 * std::sin(97.1 * t * static_cast<double>(c + 2)));
      }
    writer.write_record(record);
  }
  for (int k = 0; k < 14; ++k) writer.annotate(1.0 + 2.0 * k, "stim");
  writer.close();
}

std::vector<double> load_f64(const fs::path& path) {
  Shape shape;
  std::vector<double> values = testing::load_doubles(path, &shape);
  EXPECT_EQ(shape.size(), 1u);
  EXPECT_EQ(read_npy_header(path).dtype, DType::Float64);
  return values;
}

TEST(Outputs, ErpacWritesTheTimeOfEachSampleFromTheEventWindowStart) {
  ScratchDir dir("outputs_erpac_times");
  write_events_recording(dir / "rec.edf");
  for (const std::string pad : {"", " pad=250ms"}) {
    dir.write("erpac.pipe", "source edf path=rec.edf events=stim window=-0.5s:1s" + pad +
                                "\nstage bandpass pha=[[4,8]] amp=[[60,100],[70,90]]\nstage hilbert\nstage erpac\n"
                                "sink npy dir=out\nsink png path=out/comodulogram.png\n");
    const auto r = run_cli("run erpac.pipe -q", dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<double> times = load_f64(dir / "out/erpac_times.npy");
    ASSERT_EQ(times.size(), 384u) << "1.5 s at 256 Hz" << pad;
    for (std::size_t k = 0; k < times.size(); ++k) ASSERT_NEAR(times[k], -0.5 + static_cast<double>(k) / 256.0, 1e-12) << k << pad;
    Shape shape;
    testing::load_floats(dir / "out/erpac.npy", &shape);
    EXPECT_EQ(shape.back(), 384);
    // Without mi the png sink draws erpac only; result.json lists exactly that.
    const json report = json::parse(read_file(dir / "out/result.json"));
    EXPECT_EQ(listed(report), (std::set<std::string>{"erpac.npy", "erpac_pvalues.npy", "erpac_times.npy",
                                                     "result.json", "erpac.png"}));
    EXPECT_EQ(files_in(dir / "out"), listed(report));
    EXPECT_EQ(report["outputs"]["erpac_times.npy"]["dtype"], "float64");
  }
}

}  // namespace
}  // namespace pacflow
