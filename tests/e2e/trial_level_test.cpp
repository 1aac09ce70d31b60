// The trial-level test through whole pipelines: a coupling too weak for any single epoch's test
// shows in the mean over epochs (issue 17: a channel coupled across many epochs got no outline),
// an uncoupled channel does not; the test runs by itself with four epochs or more (enough
// orderings for a p-value below 0.05) and is refused, when asked for, with one; two event types
// are tested each and against each other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "engine/api/errors.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/io/npy.hpp"
#include "stages/builtin.hpp"
#include "stages/io/edf/edf_writer.hpp"
#include "stages/io/png/png_sink.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/support/sanitizers.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;

// Channel 0 weakly coupled (6 Hz phase, 60 Hz amplitude), channel 1 not.
json weak_coupling(std::int64_t epochs) {
  return {{"fs", 256},   {"epochs", epochs}, {"channels", 2}, {"seconds", 4}, {"f_pha", 6},    {"f_amp", 60},
          {"chi", 0.55}, {"noise", 1.0},     {"pha_bw", 0.5}, {"seed", 3},    {"coupled", {0}}};
}

json run_weak(std::int64_t epochs, const fs::path& out, json surrogates = json::object()) {
  Pipeline p(stages::builtin_registry());
  p.source("synthetic", weak_coupling(epochs));
  p.stage("bandpass", {{"pha", "4:8:3"}, {"amp", "50:70:3"}});
  p.stage("hilbert");
  p.stage("mi");
  surrogates.update({{"n", 200}, {"min_shift", "0.5s"}});
  p.stage("surrogates", surrogates);
  p.sink("npy", {{"dir", out.string()}});
  return p.run().to_json();
}

constexpr std::int64_t kTrialLevelEpochs = 40, kCells = 9, kCoupledCell = 4;  // phase band 6 Hz, amplitude band 60 Hz

TEST(TrialLevel, ACouplingTooWeakForAnyEpochShowsInTheMeanOverEpochs) {
  const testing::ScratchDir dir("trial_weak");
  const json report = run_weak(kTrialLevelEpochs, dir.path());
  Shape shape;
  const auto trial_p = testing::load_floats(dir / "trial_pvalues.npy", &shape);
  ASSERT_EQ(shape, (Shape{2, 3, 3}));
  const auto per_epoch_p = testing::load_floats(dir / "pvalues_maxstat.npy");
  std::int64_t epochs_below = 0;
  for (std::int64_t e = 0; e < kTrialLevelEpochs; ++e)
    epochs_below += per_epoch_p[static_cast<std::size_t>((e * 2 + 0) * kCells + kCoupledCell)] < 0.05f;
  EXPECT_LT(epochs_below, stages::PngSink::epochs_needed(kTrialLevelEpochs, 0.05))
      << "the epochs' own tests, even counted by the binomial rule, must miss this coupling";
  EXPECT_LT(trial_p[kCoupledCell], 0.01f) << "the mean over 40 epochs is far above every surrogate's";
  for (std::int64_t c = 0; c < kCells; ++c)
    EXPECT_GE(trial_p[static_cast<std::size_t>(kCells + c)], 0.05f) << "uncoupled channel, cell " << c;

  // trial_pac is the mean of pac over the epochs.
  const auto pac = testing::load_floats(dir / "pac.npy");
  const auto trial_pac = testing::load_floats(dir / "trial_pac.npy");
  for (std::int64_t k = 0; k < 2 * kCells; ++k) {
    double sum = 0;
    for (std::int64_t e = 0; e < kTrialLevelEpochs; ++e) sum += pac[static_cast<std::size_t>(e * 2 * kCells + k)];
    EXPECT_NEAR(trial_pac[static_cast<std::size_t>(k)], sum / kTrialLevelEpochs, 1e-6 * sum / kTrialLevelEpochs) << "cell " << k;
  }
  const json& resolved = report["pipeline"][4]["params"];
  EXPECT_EQ(resolved["trials"], "maxstat");
  EXPECT_EQ(resolved["trial_epochs"], kTrialLevelEpochs);
}

TEST(TrialLevel, RunsByItselfOnlyWithSeveralEpochsAndIsRefusedWithOneWhenAskedFor) {
  const testing::ScratchDir dir("trial_auto");
  const json one = run_weak(1, dir / "one");
  EXPECT_EQ(one["pipeline"][4]["params"]["trials"], "none");
  EXPECT_FALSE(fs::exists(dir / "one" / "trial_pvalues.npy"));
  EXPECT_TRUE(fs::exists(dir / "one" / "pvalues.npy"));
  try {
    run_weak(1, dir / "refused", {{"trials", "fdr"}});
    FAIL() << "a test of the mean over one epoch must be refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("trials"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("two epochs or more"), std::string::npos) << e.what();
  }
  const json none = run_weak(4, dir / "none", {{"trials", "none"}});
  EXPECT_FALSE(fs::exists(dir / "none" / "trial_pvalues.npy"));
  const json three = run_weak(3, dir / "three");
  EXPECT_EQ(three["pipeline"][4]["params"]["trials"], "none") << "3 epochs have 6 orderings: no p below 1/6";
  const json four = run_weak(4, dir / "four");
  EXPECT_EQ(four["pipeline"][4]["params"]["trials"], "maxstat");
  EXPECT_EQ(four["pipeline"][4]["params"]["trial_block"], 4);
  const json asked = run_weak(3, dir / "asked", {{"trials", "maxstat"}});
  bool warned = false;
  for (const auto& w : asked["warnings"]) warned |= w.get<std::string>().find("only 6 orderings") != std::string::npos;
  EXPECT_TRUE(warned) << asked["warnings"];
}

// 80 s at 256 Hz, two channels of noise; after each "go" (every 4 s from 1 s) channel 0 carries
// 60 Hz bursts locked to the phase of a 6 Hz rhythm for 2 s, after each "nogo" (every 4 s from
// 3 s) the same rhythms uncoupled.
std::filesystem::path go_nogo_recording(const fs::path& path) {
  constexpr int kRate = 256, kSeconds = 80;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(0.0, 10.0);
  std::vector<stages::EdfSignalSpec> signals(2);
  signals[0].label = "C3";
  signals[1].label = "C4";
  for (auto& s : signals) s.sample_rate = kRate;
  stages::EdfWriter writer(path.string(), false, signals);
  // The slow rhythm's phase diffuses (spec §7's driven model), so shifted surrogates decorrelate.
  std::normal_distribution<double> step(0.0, std::sqrt(4 * std::numbers::pi * 0.5 / kRate));
  double theta = 0;
  for (int r = 0; r < kSeconds; ++r) {
    std::vector<std::vector<double>> record(2);
    for (int i = 0; i < kRate; ++i) {
      const double t = r + static_cast<double>(i) / kRate;
      const double since = std::fmod(t - 1.0 + 4.0, 4.0);  // seconds after the last go
      theta += 2 * std::numbers::pi * 6 / kRate + step(rng);
      const double slow = std::cos(theta);
      const double envelope = since < 2.0 ? 1 + slow : 1;  // coupled after go only
      const double fast = std::sin(2 * std::numbers::pi * 60 * t);
      record[0].push_back(40 * slow + 15 * envelope * fast + noise(rng));
      record[1].push_back(40 * slow + noise(rng));
    }
    writer.write_record(record);
  }
  for (int k = 0; k < kSeconds / 4 - 1; ++k) {
    writer.annotate(1.0 + 4 * k, "go", -1);
    writer.annotate(3.0 + 4 * k, "nogo", -1);
  }
  writer.close();
  return path;
}

TEST(TrialLevel, TwoEventTypesAreTestedEachAndTheirDifferenceAgainstPermutedLabels) {
  const testing::ScratchDir dir("trial_conditions");
  Pipeline p(stages::builtin_registry());
  p.source(
      "edf",
      {{"path", go_nogo_recording(dir / "go_nogo.edf").string()}, {"events", {"go", "nogo"}}, {"window", "0s:2s"}});
  p.stage("bandpass", {{"pha", "4:8:3"}, {"amp", "50:70:3"}});
  p.stage("hilbert");
  p.stage("mi");
  p.stage("surrogates", {{"n", 200}, {"min_shift", "0.25s"}});
  p.sink("npy", {{"dir", (dir / "out").string()}});
  const json report = p.run().to_json();
  EXPECT_EQ(report["input"]["conditions"][0], (json{{"name", "go"}, {"epochs", 19}, {"first_epoch", 0}}));
  Shape shape;
  const auto trial_p = testing::load_floats(dir / "out" / "trial_pvalues.npy", &shape);
  ASSERT_EQ(shape, (Shape{2, 2, 3, 3})) << "[conditions][channels][phase][amplitude]";
  const auto contrast_p = testing::load_floats(dir / "out" / "contrast_pvalues.npy", &shape);
  ASSERT_EQ(shape, (Shape{2, 3, 3}));
  const auto contrast = testing::load_floats(dir / "out" / "contrast_pac.npy");
  const auto at = [](std::int64_t condition, std::int64_t channel) {
    return (condition * 2 + channel) * kCells + kCoupledCell;
  };
  EXPECT_LT(trial_p[static_cast<std::size_t>(at(0, 0))], 0.01f) << "go, C3: coupled";
  EXPECT_GE(trial_p[static_cast<std::size_t>(at(1, 0))], 0.05f) << "nogo, C3: not coupled";
  EXPECT_GT(contrast[kCoupledCell], 0.0f) << "go minus nogo";
  EXPECT_LT(contrast_p[kCoupledCell], 0.01f) << "C3 differs between go and nogo";
  for (std::int64_t c = 0; c < kCells; ++c)
    EXPECT_GE(contrast_p[static_cast<std::size_t>(kCells + c)], 0.05f) << "C4 is the same in both, cell " << c;
}

}  // namespace
}  // namespace pacflow

namespace pacflow {
namespace {

// On sim devices the trial-level test is modelled with its stage (no arithmetic, its additions
// booked with each batch on the stage's devices, its finish split over them), so a scaling run
// shows it: eight devices finish far sooner than one, where the host's summary of the same sums
// (seconds here) used to make them equal. Its tensors are zero stand-ins of their shape. The input
// is read from a file in milliseconds, so the model is what is timed.
TEST(TrialLevel, OnSimDevicesTheTestIsModelledWithItsStageAndScales) {
  const testing::ScratchDir dir("trial_sim");
  {
    NpyWriter writer(dir / "x.npy", {64, 16, 4096});
    std::mt19937 rng(1);
    std::normal_distribution<float> noise;
    std::vector<float> series(4096);
    for (int s = 0; s < 64 * 16; ++s) {
      for (float& v : series) v = noise(rng);
      writer.append(series.data(), 4096);
    }
    writer.commit();
  }
  const auto run_on = [&](const std::string& devices, const char* folder) {
    Pipeline p(stages::builtin_registry());
    p.source("npy", {{"path", (dir / "x.npy").string()}, {"fs", 512}, {"layout", "ECT"}});
    p.stage("bandpass", {{"pha", "2:20:50"}, {"amp", "60:160:50"}, {"on", devices}});
    p.stage("hilbert", {{"on", devices}});
    p.stage("mi", {{"on", devices}});
    p.stage("surrogates", {{"n", 10000}, {"on", devices}});
    p.sink("npy", {{"dir", (dir / folder).string()}});
    return p.run().to_json();
  };
  const json one = run_on("sim:0", "one"), eight = run_on("sim:0-7", "eight");
  const auto wall = [](const json& r) { return r["run"]["wall_s"].get<double>(); };
  // A sanitizer slows the host's share of the run (reading the file, the stand-ins, the sinks), not
  // the model's, and that share is what another test beside this one varies: under one, each wall
  // is the quickest of two runs. 2.2x under TSan with another test beside it, 1.50x at worst seen
  // in CI (one run each); 6.6x in an optimised build; 0.94x when the host computed the summary.
#if defined(PACFLOW_UNDER_ASAN) || defined(PACFLOW_UNDER_TSAN)
  constexpr double kScaling = 1.4;
  const double wall_one = std::min(wall(one), wall(run_on("sim:0", "one_again")));
  const double wall_eight = std::min(wall(eight), wall(run_on("sim:0-7", "eight_again")));
#else
  constexpr double kScaling = 3.0;
  const double wall_one = wall(one), wall_eight = wall(eight);
#endif
  const auto summary_row = [](const json& r) {
    for (const json& row : r["run"]["stages"])
      if (row["kind"] == "summary") return row;
    return json();
  };
  ASSERT_TRUE(summary_row(one).is_object()) << one["run"]["stages"].dump();
  EXPECT_EQ(summary_row(one)["modelled"], true);
  EXPECT_EQ(summary_row(one)["batches"], 0) << "no host additions: the model books them with the batches";
  EXPECT_GT(wall_one, 1.0);
  EXPECT_GT(wall_one / wall_eight, kScaling) << "one device " << wall_one << " s, eight " << wall_eight << " s";
  // Nor is the summary's 3.2 GB of sums counted in the host's memory: no host computes them.
  for (const json& term : one["host_memory_estimate"]["terms"])
    EXPECT_EQ(term["what"].get<std::string>().find("surrogates working memory"), std::string::npos) << term.dump();
  Shape shape;
  const auto p = testing::load_floats(dir / "one" / "trial_pvalues.npy", &shape);
  EXPECT_EQ(shape, (Shape{16, 50, 50}));
  EXPECT_TRUE(std::all_of(p.begin(), p.end(), [](float v) { return v == 0.0f; })) << "zero stand-ins";
}

}  // namespace
}  // namespace pacflow
