// pipeline_cli as a user meets it: exit codes, messages that point at the culprit, and outputs
// that are either complete or untouched.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "engine/placement/devices.hpp"

#include "engine/io/npy.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/support/special_files.hpp"

namespace pacflow {
namespace {

using testing::run_cli;
using testing::ScratchDir;
namespace fs = std::filesystem;

std::string small_pipe(const std::string& input, const std::string& extra_stage_line = "") {
  return "# a small pipeline\n"
         "source npy path=" + input + " fs=256\n"
         "stage  bandpass pha=[[4,8]] amp=[[60,80]]\n" + extra_stage_line +
         "stage  hilbert\n"
         "stage  mi bins=18\n"
         "sink   npy dir=out\n";
}

std::string fixture_input() { return (testing::data_dir() / "small" / "x.npy").string(); }

TEST(Cli, HelpAndVersionExitZero) {
  const ScratchDir dir("cli");
  const auto help = run_cli("--help", dir.path());
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("run"), std::string::npos);
  EXPECT_NE(help.out.find("validate"), std::string::npos);
  const auto version = run_cli("--version", dir.path());
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.out.find("pacflow"), std::string::npos);
}

TEST(Cli, StagesListsEveryElementWithParametersAndDefaults) {
  const ScratchDir dir("cli");
  const auto r = run_cli("stages", dir.path());
  EXPECT_EQ(r.exit_code, 0);
  for (const char* word : {"source synthetic", "source npy", "stage bandpass", "stage hilbert", "stage mi",
                           "stage surrogates", "sink npy", "sink png", "min_shift", "60:160:10"})
    EXPECT_NE(r.out.find(word), std::string::npos) << word;
  // Allowed values come with each parameter: a range, or choices.
  EXPECT_NE(r.out.find("(1 to 1000) filter order"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(reject|zero|skip)"), std::string::npos) << r.out;
  // The placement parameters are listed once, after the stages, not under each stage.
  const auto placement = r.out.find("placement: every stage but a preprocessing one also takes");
  ASSERT_NE(placement, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("    on "), r.out.find("    on ", placement)) << r.out;
  EXPECT_NE(r.out.find("(block|fail|grow)", placement), std::string::npos) << r.out;
}

TEST(Cli, UsageErrorExitsTwo) {
  const ScratchDir dir("cli");
  EXPECT_EQ(run_cli("", dir.path()).exit_code, 2);
  EXPECT_EQ(run_cli("frobnicate", dir.path()).exit_code, 2);
  EXPECT_EQ(run_cli("run", dir.path()).exit_code, 2);
}

TEST(Cli, MissingPipeFileExitsTwoNamingIt) {
  const ScratchDir dir("cli");
  const auto r = run_cli("run nosuch.pipe", dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nosuch.pipe: no such file"), std::string::npos) << r.err;
}

TEST(Cli, MissingInputFileExitsTwoNamingIt) {
  const ScratchDir dir("cli");
  dir.write("p.pipe", small_pipe("absent.npy"));
  const auto r = run_cli("run p.pipe", dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("p.pipe:2:12: source \"npy\", parameter \"path\": absent.npy: no such file"), std::string::npos) << r.err;
}

TEST(Cli, MalformedNpyExitsTwoNamingTheFile) {
  const ScratchDir dir("cli");
  dir.write("bad.npy", "\x93NUMPY garbage that is not a header");
  dir.write("p.pipe", small_pipe("bad.npy"));
  const auto r = run_cli("run p.pipe", dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.npy: not a readable .npy file"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one clear message: " << r.err;
}

TEST(Cli, UnknownStageExitsTwoWithLocationAndSuggestion) {
  const ScratchDir dir("cli");
  dir.write("p.pipe", small_pipe(fixture_input(), "stage  hilbret\n"));
  const auto r = run_cli("run p.pipe", dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("p.pipe:4:8: unknown stage \"hilbret\"; did you mean \"hilbert\"?"), std::string::npos) << r.err;
}

// Preprocessing stages run as the source reads: right after it, in whole epochs where they combine
// channels (every batch size is rounded to whole epochs), with the same results for any batch size.
TEST(Cli, PreprocessingStagesComeRightAfterTheSourceAndKeepResultsIndependentOfBatches) {
  const ScratchDir dir("cli_preprocessing");
  const std::string preprocessing = "stage notch freq=50\nstage reref bipolar=[0-1, 1-2]\n";
  std::string text = small_pipe(fixture_input());
  text.insert(text.find("stage  bandpass"), preprocessing);
  dir.write("p.pipe", text);
  const auto one = run_cli("run p.pipe -q --batch 1 --out one", dir.path());
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto five = run_cli("run p.pipe -q --batch 5 --out five", dir.path());
  ASSERT_EQ(five.exit_code, 0) << five.err;
  EXPECT_EQ(testing::read_file(dir / "one" / "pac.npy"), testing::read_file(dir / "five" / "pac.npy"));
  std::ifstream in(dir / "five" / "result.json");
  const json report = json::parse(in);
  EXPECT_EQ(report["input"]["shape"], json({2, 2, 1024}));
  EXPECT_EQ(report["batch_multiple"], json({{"series", 2}, {"required_by", "reref"}}));
  EXPECT_EQ(report["pipeline"][1]["name"], "notch");
  EXPECT_EQ(report["pipeline"][1]["params"]["frequencies_hz"], json({50.0, 100.0}));
  EXPECT_EQ(report["pipeline"][2]["params"]["bipolar"], json({"0-1", "1-2"}));
  EXPECT_EQ(read_npy(dir / "five" / "pac.npy").shape(), (Shape{2, 2, 1, 1}));

  std::string late = small_pipe(fixture_input(), "stage  notch freq=50\n");
  dir.write("late.pipe", late);
  const auto refused = run_cli("run late.pipe", dir.path());
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("late.pipe:4:8: stage \"notch\" is a preprocessing stage: it transforms the source's "
                             "series as they are read, so it comes right after the source"),
            std::string::npos)
      << refused.err;
  const auto placed = run_cli("run p.pipe --set reref.on=cpu:0", dir.path());
  EXPECT_EQ(placed.exit_code, 2);
  EXPECT_NE(placed.err.find("parameter \"on\": a preprocessing stage runs on the CPU as the source reads, so it takes "
                            "no on="),
            std::string::npos)
      << placed.err;
}

TEST(Cli, UnknownParameterExitsTwoWithLocationAndSuggestion) {
  const ScratchDir dir("cli");
  std::string text = small_pipe(fixture_input());
  text.replace(text.find("bins=18"), 7, "bnis=18");
  dir.write("p.pipe", text);
  const auto r = run_cli("validate p.pipe", dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("p.pipe:5:11: stage \"mi\": unknown parameter \"bnis\"; did you mean \"bins\"?"), std::string::npos)
      << r.err;
}

TEST(Cli, BandAboveNyquistExitsTwoNamingTheBand) {
  const ScratchDir dir("cli");
  std::string text = small_pipe(fixture_input());
  text.replace(text.find("amp=[[60,80]]"), 13, "amp=[[60,80],[100,140]]");
  dir.write("p.pipe", text);
  const auto r = run_cli("run p.pipe", dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("p.pipe:3:29: stage \"bandpass\", parameter \"amp\": band 1 [100, 140] Hz: its high edge must be "
                       "below Nyquist (fs/2 = 128 Hz)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(Cli, BadSetOverrideExitsTwo) {
  const ScratchDir dir("cli");
  dir.write("p.pipe", small_pipe(fixture_input()));
  EXPECT_EQ(run_cli("run p.pipe --set mi.bins=abc", dir.path()).exit_code, 2);
  const auto r = run_cli("run p.pipe --set nosuch.x=1", dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no element \"nosuch\""), std::string::npos) << r.err;
}

TEST(Cli, ValidateChecksWithoutWriting) {
  const ScratchDir dir("cli");
  dir.write("p.pipe", small_pipe(fixture_input()));
  const auto r = run_cli("validate p.pipe", dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ok"), std::string::npos);
  EXPECT_EQ(r.out.find("branches:"), std::string::npos) << r.out;  // a plain chain
  EXPECT_FALSE(fs::exists(dir / "out"));
  // mi and surrogates both read only what hilbert wrote.
  std::string with_surrogates = small_pipe(fixture_input());
  with_surrogates.insert(with_surrogates.find("sink"), "stage  surrogates n=4\n");
  dir.write("s.pipe", with_surrogates);
  const auto s = run_cli("validate s.pipe", dir.path());
  EXPECT_EQ(s.exit_code, 0) << s.err;
  EXPECT_NE(s.out.find("branches: mi | surrogates run side by side on each batch"), std::string::npos) << s.out;
}

TEST(Cli, GraphPrintsDotOrWritesItWithoutRunning) {
  const ScratchDir dir("cli");
  dir.write("p.pipe", small_pipe(fixture_input()));
  const auto printed = run_cli("graph p.pipe", dir.path());
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(printed.out.rfind("digraph pacflow {", 0), 0u);
  EXPECT_NE(printed.out.find("-> n2 [label=\"filtered_pha\\nfiltered_amp\"]"), std::string::npos) << printed.out;
  const auto written = run_cli("graph p.pipe -o g.dot", dir.path());
  ASSERT_EQ(written.exit_code, 0) << written.err;
  std::ifstream in(dir / "g.dot");
  const std::string dot((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(dot, printed.out);
  EXPECT_FALSE(fs::exists(dir / "out"));
  EXPECT_EQ(run_cli("graph missing.pipe", dir.path()).exit_code, 2);
}

TEST(Cli, TraceWritesAChromeTraceWithASpanPerElementAndBatch) {
  const ScratchDir dir("cli");
  dir.write("p.pipe", small_pipe(fixture_input()));
  const auto r = run_cli("run p.pipe -q --batch 2 --trace trace.json", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(dir / "trace.json");
  const json trace = json::parse(in);
  std::size_t spans = 0;
  for (const auto& e : trace.at("traceEvents"))
    if (e.at("ph") == "X") ++spans;
  EXPECT_EQ(spans, 3u * 5u);  // 6 series in 3 batches of 2; source, 3 stages, sink
}

TEST(Cli, DevicesOptionPlacesStagesAndOverridesTheFile) {
  const ScratchDir dir("cli");
  dir.write("p.pipe", "devices cpu:0\n" + small_pipe(fixture_input()));
  const auto r = run_cli("run p.pipe -q --devices 'cpu:*'", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(dir / "out" / "result.json");
  const json report = json::parse(in);
  for (const auto& e : report["pipeline"]) {
    if (e["kind"] == "stage") {
      EXPECT_EQ(e["device"].get<std::string>().rfind("cpu:0", 0), 0u) << e;
    }
  }
  const auto bad = run_cli("run p.pipe -q --devices cpu:99", dir.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("cpu:99 does not exist"), std::string::npos) << bad.err;
}

TEST(Cli, DevicesCpuForcesACpuOnlyRunWhateverTheFileSays) {
  const ScratchDir dir("cli");
  dir.write("p.pipe", "source npy path=" + fixture_input() + " fs=256\n"
                      "stage bandpass pha=[[4,8]] amp=[[60,80]] on=cuda:*\n"
                      "stage hilbert on=sim:0\nstage mi\nsink npy dir=out\n");
  if (cuda_availability().count() == 0) {
    const auto refused = run_cli("run p.pipe -q", dir.path());
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_NE(refused.err.find("p.pipe:2:"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("cuda:* asks for a GPU, but none is visible"), std::string::npos) << refused.err;
    // --fallback cpu: the GPU stage runs on the CPU after one warning line.
    const auto fell_back = run_cli("run p.pipe -q --fallback cpu", dir.path());
    ASSERT_EQ(fell_back.exit_code, 0) << fell_back.err;
    EXPECT_NE(fell_back.err.find("warning: fallback=cpu: bandpass (on=cuda:*) runs on the CPU"), std::string::npos)
        << fell_back.err;
  }
  const auto forced = run_cli("run p.pipe -q --devices cpu", dir.path());
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_NE(forced.err.find("overrides the accelerator placement of bandpass (on=cuda:*), hilbert (on=sim:0)"),
            std::string::npos)
      << forced.err;
  EXPECT_TRUE(fs::exists(dir / "out" / "pac.npy"));
}

// From a directory laid out like the repository root after `make_example_inputs`: the pipelines,
// tests/data for the npy example, out/example_inputs for the EDF, BDF and HDF5 examples.
TEST(Cli, EveryShippedPipelineValidates) {
  const fs::path source = PACFLOW_SOURCE_DIR;
  const ScratchDir root("cli_examples");
  fs::create_directory_symlink(source / "tests", root / "tests");
  testing::copy_shipped_pipelines(root.path());
  const auto made = testing::run_program(PACFLOW_MAKE_EXAMPLE_INPUTS, "out/example_inputs", root.path());
  ASSERT_EQ(made.exit_code, 0) << made.err;
  // gPAC's scenario reads 614 MB that `make_example_inputs --gpac` writes in seconds; its shape here.
  fs::create_directories(root / "out" / "bench");
  testing::write_sparse_npy(root / "out" / "bench" / "gpac.npy", "(256, 600000)", 256 * 600'000);
  // The heavy scaling job's 16 MB input, as its pipeline's comment says to make it.
  const auto sim_input = testing::run_program(PACFLOW_MAKE_EXAMPLE_INPUTS, "--sim-trials out/bench", root.path());
  ASSERT_EQ(sim_input.exit_code, 0) << sim_input.err;
  int checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root / "pipelines")) {
    if (entry.path().extension() != ".pipe") continue;
    const auto r = run_cli("validate '" + entry.path().lexically_relative(root.path()).string() + "'", root.path());
    EXPECT_EQ(r.exit_code, 0) << entry.path() << ": " << r.err;
    ++checked;
  }
  EXPECT_GE(checked, 15);  // pac, gpu, npy/edf/bdf/hdf5 examples, placement, sim_scaling, methods, erpac, bench/w1-w3, gpac, sim_trials
}

TEST(Cli, DevicesListsTheCpu) {
  const ScratchDir dir("cli");
  const auto r = run_cli("devices", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("cpu", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("cpu:0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cuda"), std::string::npos) << r.out;
}

TEST(Cli, OutRedirectsEverySinkAndSetOverridesParameters) {
  const ScratchDir dir("cli");
  dir.write("p.pipe", small_pipe(fixture_input()) + "sink png path=plots/c.png\n");
  const auto r = run_cli("run p.pipe --out results --set mi.bins=12 -q", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "results" / "pac.npy"));
  EXPECT_TRUE(fs::exists(dir / "results" / "result.json"));
  EXPECT_TRUE(fs::exists(dir / "results" / "c.png"));
  EXPECT_FALSE(fs::exists(dir / "out"));
  std::ifstream in(dir / "results" / "result.json");
  const json report = json::parse(in);
  EXPECT_EQ(report["mi_bins"], 12);
  EXPECT_EQ(read_npy(dir / "results" / "pac.npy").shape(), (Shape{2, 3, 1, 1}));
}

TEST(Cli, FailedRunLeavesEarlierOutputsUntouched) {
  const ScratchDir dir("cli");
  dir.write("p.pipe", small_pipe(fixture_input()));
  ASSERT_EQ(run_cli("run p.pipe -q", dir.path()).exit_code, 0);
  const auto before = fs::last_write_time(dir / "out" / "pac.npy");
  const auto size = fs::file_size(dir / "out" / "pac.npy");
  {  // same shape, but a NaN in the last series: fails after earlier batches were written
    NpyWriter w(dir / "nan.npy", {2, 3, 1024});
    std::vector<float> v = testing::load_floats(fixture_input());
    v[5 * 1024 + 17] = NAN;
    w.append(v.data(), static_cast<std::int64_t>(v.size()));
    w.commit();
  }
  const auto r = run_cli("run p.pipe --set source.path=nan.npy --batch 1 -q", dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("NaN at epoch 1, channel 2, sample 17"), std::string::npos) << r.err;
  EXPECT_EQ(fs::last_write_time(dir / "out" / "pac.npy"), before);
  EXPECT_EQ(fs::file_size(dir / "out" / "pac.npy"), size);
  for (const auto& e : fs::directory_iterator(dir / "out"))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << "left a temp file: " << e.path();
}

TEST(Cli, SyntaxErrorReportsFileLineColumn) {
  const ScratchDir dir("cli");
  dir.write("p.pipe", "source synthetic\nstge bandpass\n");
  const auto r = run_cli("validate p.pipe", dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("p.pipe:2:1:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean \"stage\"?"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace pacflow

namespace pacflow {
namespace {

TEST(Cli, ResultJsonRecordsInputBandsParametersPlacementAndTimings) {
  const testing::ScratchDir dir("cli");
  dir.write("p.pipe", "source npy path=" + (testing::data_dir() / "small" / "x.npy").string() +
                          " fs=256\n"
                          "stage bandpass pha=4:12:3 amp=[[60,80],[80,100]]\n"
                          "stage hilbert\nstage mi\nstage surrogates n=25 seed=3 min_shift=0.25s\n"
                          "sink npy dir=out\n");
  ASSERT_EQ(testing::run_cli("run p.pipe -q", dir.path()).exit_code, 0);
  std::ifstream in(dir / "out" / "result.json");
  const json r = json::parse(in);
  EXPECT_FALSE(r["version"].get<std::string>().empty());
  EXPECT_EQ(r["input"]["shape"], json::parse("[2, 3, 1024]"));
  EXPECT_EQ(r["input"]["dtype"], "float32");
  EXPECT_EQ(r["input"]["fs"], 256.0);
  EXPECT_EQ(r["input"]["sha256"].get<std::string>().size(), 64u);
  EXPECT_NE(r["input"]["path"].get<std::string>().find("x.npy"), std::string::npos);
  EXPECT_EQ(r["pha_bands_hz"].size(), 3u);
  EXPECT_EQ(r["amp_bands_hz"], json::parse("[[60, 80], [80, 100]]"));
  const json& elements = r["pipeline"];
  ASSERT_EQ(elements.size(), 6u);
  EXPECT_EQ(elements[1]["params"]["pha_filter_orders"].size(), 3u);
  EXPECT_EQ(elements[1]["device"], "cpu");
  const json& surrogates = elements[4]["params"];
  EXPECT_EQ(surrogates["seed"], 3);
  EXPECT_EQ(surrogates["min_shift_samples"], 64);
  EXPECT_EQ(surrogates["shifts"].size(), 25u);
  EXPECT_EQ(r["run"]["stages"].size(), 6u);  // the source, 4 stages and the sink
  for (const auto& s : r["run"]["stages"]) {
    EXPECT_GT(s["batches"].get<int>(), 0) << s["name"];
    EXPECT_GE(s["busy_s"].get<double>(), 0.0);
  }
  EXPECT_EQ(r["outputs"]["pac_z.npy"]["shape"], json::parse("[2, 3, 3, 2]"));
}

// The trial-level test's own time (issue 42): a "summary" line in result.json's timings (its additions
// per batch and its finish) and spans of its own in the trace; none without the test.
TEST(Cli, TheTrialLevelTestsTimeIsALineOfItsOwnInTheTimingsAndTheTrace) {
  const testing::ScratchDir dir("cli_summary_time");
  const std::string pipe = "source synthetic fs=256 epochs=6 channels=2 seconds=2 seed=1\n"
                           "stage bandpass pha=4:12:3 amp=60:100:2\nstage hilbert\nstage mi\n"
                           "stage surrogates n=30 seed=3 min_shift=0.25s";
  dir.write("with.pipe", pipe + "\nsink npy dir=with\n");
  dir.write("without.pipe", pipe + " trials=none\nsink npy dir=without\n");
  ASSERT_EQ(testing::run_cli("run with.pipe -q --trace with/trace.json", dir.path()).exit_code, 0);
  ASSERT_EQ(testing::run_cli("run without.pipe -q", dir.path()).exit_code, 0);
  const auto run_of = [&](const char* folder) {
    std::ifstream in(dir / folder / "result.json");
    return json::parse(in)["run"];
  };
  const json with = run_of("with")["stages"];
  const auto batches = run_of("with")["batches"].get<std::int64_t>();
  const auto summary = std::find_if(with.begin(), with.end(), [](const json& row) { return row["kind"] == "summary"; });
  ASSERT_NE(summary, with.end()) << with.dump();
  EXPECT_EQ((*summary)["name"], "surrogates");
  EXPECT_EQ((*summary)["batches"], batches) << "one addition per batch";
  EXPECT_GT((*summary)["finish_s"].get<double>(), 0.0);
  EXPECT_LE((*summary)["finish_s"].get<double>(), (*summary)["busy_s"].get<double>());
  const json without = run_of("without");  // named: the loop below must not outlive it
  for (const json& row : without["stages"]) EXPECT_NE(row["kind"], "summary") << "no trial-level test, no line";
  std::ifstream trace_file(dir / "with" / "trace.json");
  const json trace = json::parse(trace_file);
  const json& events = trace.is_object() ? trace["traceEvents"] : trace;
  const auto spans = std::count_if(events.begin(), events.end(), [](const json& e) { return e.value("cat", "") == "summary"; });
  EXPECT_EQ(spans, batches + 1) << "one per batch and its finish";
}

}  // namespace
}  // namespace pacflow

namespace pacflow {
namespace {

TEST(Cli, AbsurdValuesGiveClearErrorsNotCrashes) {
  const testing::ScratchDir dir("cli");
  const std::string pipe = (fs::path(PACFLOW_SOURCE_DIR) / "pipelines" / "pac.pipe").string();
  for (const char* set : {"surrogates.min_shift=5e18smp", "surrogates.min_shift=0s", "mi.bins=1e30", "source.epochs=0",
                          "source.coupled=[]", "bandpass.pha=1:100:1:1e-300", "source.n_times=1e12"}) {
    const auto r = testing::run_cli("validate '" + pipe + "' --set '" + set + "'", dir.path());
    EXPECT_EQ(r.exit_code, 2) << set << ": " << r.err;
    EXPECT_NE(r.err.find("parameter"), std::string::npos) << set << ": " << r.err;
  }
}

TEST(Cli, RepeatedStageIsRejectedAtItsLocation) {
  const testing::ScratchDir dir("cli");
  dir.write("p.pipe", "source synthetic epochs=1 channels=1\nstage bandpass\nstage bandpass\nsink npy\n");
  const auto r = testing::run_cli("validate p.pipe", dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("p.pipe:3:7: stage \"bandpass\": it writes \"filtered_pha\""), std::string::npos) << r.err;
}

TEST(Cli, EmptyPipeFileIsNamed) {
  const testing::ScratchDir dir("cli");
  dir.write("empty.pipe", "# nothing here\n");
  const auto r = testing::run_cli("run empty.pipe", dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("empty.pipe: no pipeline elements"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace pacflow

namespace pacflow {
namespace {

// Choices the PAC stages refuse, each with one message naming the parameter and what would work.
// The names TensorPAC, pactools and MNE users type get where their meaning lives here, at their
// position in the file, instead of a spelling suggestion.
TEST(Cli, NamesFromTensorPacPactoolsAndMnePointToPacflowsParameters) {
  const testing::ScratchDir dir("cli");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"stage bandpass f_pha=[2,20]", "p.pipe:2:16: stage \"bandpass\": unknown parameter \"f_pha\": TensorPAC's phase "
                                      "frequencies are pha= on stage bandpass"},
      {"stage bandpass cycle=[3,6]", "pha_cycles= and amp_cycles= on stage bandpass"},
      {"stage surrogates n_perm=200", "TensorPAC's number of permutations is n= on stage surrogates"},
      {"stage surrogates n_surrogates=200", "pactools' number of surrogates is n= on stage surrogates"},
      {"stage surrogates random_state=0", "the random seed is seed= on stage surrogates"},
      {"stage surrogates minimum_shift=1.0", "minimum_shift=1.0 is min_shift=1s"},
      {"stage mi idpac=[1,2,4]", "method= on stage mi (tort, mvl, ndpac, plv, hr, gc), method= on stage surrogates"},
      {"stage mi n_bins=18", "the number of phase bins is bins= on stage mi"},
  };
  for (const auto& [line, message] : cases) {
    // The chain in order, the line under test in place of its element's plain line.
    const std::string element = line.substr(0, line.rfind(' '));
    std::string ordered = "source synthetic epochs=1 channels=1\n";
    for (const char* stage : {"bandpass", "hilbert", "mi", "surrogates"})
      ordered += element == std::string("stage ") + stage ? line + "\n" : std::string("stage ") + stage + "\n";
    ordered += "sink npy\n";
    dir.write("p.pipe", ordered);
    const auto r = testing::run_cli("validate p.pipe", dir.path());
    EXPECT_EQ(r.exit_code, 2) << line << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << line << ": " << r.err;
  }
  // A real near-miss still gets its spelling suggestion.
  dir.write("q.pipe", "source synthetic\nstage bandpass\nstage hilbert\nstage mi bnis=18\nsink npy\n");
  EXPECT_NE(testing::run_cli("validate q.pipe", dir.path()).err.find("did you mean \"bins\""), std::string::npos);
}

TEST(Cli, BadMethodPairsAndSurrogateChoicesExitTwoExplaining) {
  const testing::ScratchDir dir("cli");
  // The default pipeline without its min_shift, which swap_trials (shifting nothing) would refuse first.
  std::string text = testing::read_file(fs::path(PACFLOW_SOURCE_DIR) / "pipelines" / "pac.pipe");
  text.replace(text.find(" min_shift=1s"), std::string(" min_shift=1s").size(), "");
  const std::string pipe = dir.write("pac.pipe", text).string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--set mi.method=kl", "parameter \"method\": must be one of tort, mvl, ndpac, plv, hr, gc, got \"kl\""},
      {"--set mi.method=plv", "add \"stage envelope_phase\" between hilbert and mi"},
      {"--set 'mi.pairs=[[0,1],[2,16]]'", "pair [2,16] names channel 16, but the input has 16 channels"},
      {"--set surrogates.method=swap_trials --set source.epochs=1", "the input has 1 epoch"},
      {"--set surrogates.norm=percent", "parameter \"norm\": must be one of z, subtract, divide, both, got \"percent\""},
  };
  for (const auto& [args, message] : cases) {
    const auto r = testing::run_cli("validate '" + pipe + "' " + args, dir.path());
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
  }
}

// The estimate validate prints is the one run checks against --max-memory, for the same --batch.
TEST(Cli, ValidatePrintsTheMemoryEstimateRunChecksAndAnEstimatedRunTime) {
  const ScratchDir dir("cli");
  dir.write("p.pipe", "source synthetic epochs=4 channels=8\nstage bandpass pha=2:20:10 amp=60:160:10\n"
                      "stage hilbert\nstage mi\nsink npy dir=out\n");
  const auto printed_memory = [](const std::string& out) {
    const std::string mark = "memory: at most ";
    const auto at = out.find(mark);
    return at == std::string::npos ? std::string() : out.substr(at + mark.size(), out.find(" of host", at) - at - mark.size());
  };
  const auto whole = run_cli("validate p.pipe --batch 8", dir.path());
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const std::string estimate = printed_memory(whole.out);
  ASSERT_FALSE(estimate.empty()) << whole.out;
  const auto refused = run_cli("run p.pipe -q --batch 8 --max-memory 1MiB", dir.path());
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("the run needs an estimated " + estimate + " ="), std::string::npos)
      << "validate said " << estimate << "; run said " << refused.err;
  // --batch and --in-flight shape the estimate as they shape a run.
  const auto small = run_cli("validate p.pipe --batch 1 --in-flight 1", dir.path());
  ASSERT_EQ(small.exit_code, 0) << small.err;
  EXPECT_NE(printed_memory(small.out), estimate) << small.out;
  const std::string threads = fmt::format("on {} thread", cpu_device_count());
  EXPECT_NE(whole.out.find("run time: about "), std::string::npos) << whole.out;
  EXPECT_NE(whole.out.find(threads), std::string::npos) << whole.out;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(Cli, StagesNameShowsOnlyThoseElements) {
  const ScratchDir dir("cli");
  const auto one = run_cli("stages bandpass", dir.path());
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out.rfind("stage bandpass:", 0), 0u) << one.out;
  EXPECT_NE(one.out.find("pha"), std::string::npos);
  EXPECT_EQ(one.out.find("stage hilbert"), std::string::npos) << one.out;
  EXPECT_EQ(one.out.find("source "), std::string::npos) << one.out;
  // A source and a sink share the name npy: both are shown.
  const auto both = run_cli("stages npy", dir.path());
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_NE(both.out.find("source npy:"), std::string::npos) << both.out;
  EXPECT_NE(both.out.find("sink npy:"), std::string::npos) << both.out;
  EXPECT_EQ(both.out.find("stage "), std::string::npos) << both.out;
  const auto unknown = run_cli("stages hilbret", dir.path());
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(unknown.out.empty()) << unknown.out;
  EXPECT_NE(unknown.err.find("no source, stage or sink is called \"hilbret\"; did you mean \"hilbert\"?"),
            std::string::npos)
      << unknown.err;
}

// A .pipe file and its data move together: its paths are relative to its folder, run from anywhere;
// what the command line gives (--set, --out) stays relative to the working directory.
TEST(Cli, PathsInAPipeFileAreRelativeToItsFolderAndCommandLineValuesToTheWorkingDirectory) {
  const ScratchDir dir("cli");
  fs::create_directories(dir / "project" / "data");
  fs::create_directories(dir / "elsewhere");
  fs::copy_file(fixture_input(), dir / "project" / "data" / "x.npy");
  dir.write("project/p.pipe",
            "source npy path=data/x.npy fs=256\nstage bandpass pha=[[4,8]] amp=[[60,80]]\nstage hilbert\n"
            "stage mi\nsink npy dir=results\nsink png path=plots/comodulogram.png\n");
  const fs::path cwd = dir / "elsewhere";
  const auto r = run_cli("run ../project/p.pipe -q", cwd);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "project" / "results" / "pac.npy"));
  EXPECT_TRUE(fs::exists(dir / "project" / "plots" / "comodulogram.png"));
  EXPECT_FALSE(fs::exists(cwd / "results"));
  // The same by an absolute path, and the printed summary names where the files went.
  const auto absolute = run_cli("run '" + (dir / "project" / "p.pipe").string() + "'", cwd);
  ASSERT_EQ(absolute.exit_code, 0) << absolute.err;
  EXPECT_NE(absolute.out.find((dir / "project" / "results").string()), std::string::npos) << absolute.out;
  // --set and --out are the command line's: relative to the working directory.
  fs::copy_file(fixture_input(), cwd / "mine.npy");
  const auto set = run_cli("run ../project/p.pipe -q --set source.path=mine.npy --set png.path=mine.png --out here", cwd);
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_TRUE(fs::exists(cwd / "here" / "pac.npy"));
  EXPECT_TRUE(fs::exists(cwd / "here" / "mine.png"));
  std::ifstream in(cwd / "here" / "result.json");
  EXPECT_EQ(json::parse(in)["input"]["path"], "mine.npy");
  const auto no_out = run_cli("run ../project/p.pipe -q --set png.path=own/plot.png", cwd);
  ASSERT_EQ(no_out.exit_code, 0) << no_out.err;
  EXPECT_TRUE(fs::exists(cwd / "own" / "plot.png"));
  EXPECT_TRUE(fs::exists(dir / "project" / "results" / "pac.npy"));
  // An error names the path as resolved.
  dir.write("project/bad.pipe", small_pipe("absent.npy"));
  const auto bad = run_cli("validate ../project/bad.pipe", cwd);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("../project/absent.npy: no such file"), std::string::npos) << bad.err;
}

TEST(Cli, ResultJsonRecordsProvenance) {
  const ScratchDir dir("cli");
  dir.write("p.pipe", small_pipe(fixture_input()));
  ASSERT_EQ(run_cli("run p.pipe -q --batch 2", dir.path()).exit_code, 0);
  std::ifstream in(dir / "out" / "result.json");
  const json p = json::parse(in).at("provenance");
  ASSERT_GE(p["command_line"].size(), 5u) << p;
  EXPECT_EQ(p["command_line"][0], PACFLOW_CLI);
  EXPECT_EQ(p["command_line"], json({PACFLOW_CLI, "run", "p.pipe", "-q", "--batch", "2"}));
  EXPECT_EQ(fs::path(p["working_directory"].get<std::string>()), fs::canonical(dir.path()));
  const auto version = run_cli("--version", dir.path());
  EXPECT_NE(version.out.find(p["version"].get<std::string>()), std::string::npos) << version.out;
  EXPECT_NE(version.out.find(p["describe"].get<std::string>()), std::string::npos) << version.out;
  const std::string commit = p["commit"];
  // The commit the build came from: the checkout's HEAD, or "unknown" outside a git checkout.
  const auto head = testing::run_program("git", "-C '" + std::string(PACFLOW_SOURCE_DIR) + "' rev-parse HEAD", dir.path());
  if (head.exit_code == 0) {
    EXPECT_EQ(commit + "\n", head.out);
  } else {
    EXPECT_EQ(commit, "unknown");
  }
  const json& build = p["build"];
  EXPECT_FALSE(build["compiler"].get<std::string>().empty());
  EXPECT_TRUE(build["cuda"].is_boolean());
  EXPECT_EQ(build["cuda"].get<bool>(),
            run_cli("devices", dir.path()).out.find("built without CUDA") == std::string::npos);
  const int width = build["simd_width_bytes"];
  EXPECT_TRUE(width == 16 || width == 32 || width == 64) << build;
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  EXPECT_EQ(p["host"], std::string(host));
  EXPECT_FALSE(p["cpu_model"].get<std::string>().empty());
  EXPECT_EQ(p["threads"], cpu_device_count());
  // A run on the CPU never loads the GPU backend, so it does not list the GPUs.
  ASSERT_TRUE(p["gpus"].is_array());
  EXPECT_TRUE(p["gpus"].empty());
  EXPECT_EQ(p["gpus_none"], "not probed: no stage ran on a GPU");
}

}  // namespace
}  // namespace pacflow
