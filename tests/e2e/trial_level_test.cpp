// The trial-level test through whole pipelines: a coupling too weak for any single epoch's test
// shows in the mean over epochs (issue 17: a channel coupled across many epochs got no outline),
// an uncoupled channel does not; the test runs by itself with two epochs or more and is refused,
// when asked for, with one.
#include <filesystem>
#include <gtest/gtest.h>

#include "engine/errors.hpp"
#include "engine/pipeline.hpp"
#include "stages/builtin.hpp"
#include "stages/io/png/png_sink.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;

// Channel 0 weakly coupled (6 Hz phase, 60 Hz amplitude), channel 1 not.
json weak_coupling(std::int64_t epochs) {
  return {{"fs", 256},   {"epochs", epochs}, {"channels", 2},   {"seconds", 4},    {"f_pha", 6},      {"f_amp", 60},
          {"chi", 0.55}, {"noise", 1.0},     {"pha_bw", 0.5},   {"seed", 3},       {"coupled", {0}}};
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
  return p.run();
}

constexpr std::int64_t kEpochs = 40, kCells = 9, kCoupledCell = 4;  // phase band 6 Hz, amplitude band 60 Hz

TEST(TrialLevel, ACouplingTooWeakForAnyEpochShowsInTheMeanOverEpochs) {
  const testing::ScratchDir dir("trial_weak");
  const json report = run_weak(kEpochs, dir.path());
  Shape shape;
  const auto trial_p = testing::load_floats(dir / "trial_pvalues.npy", &shape);
  ASSERT_EQ(shape, (Shape{2, 3, 3}));
  const auto per_epoch_p = testing::load_floats(dir / "pvalues_maxstat.npy");
  std::int64_t epochs_below = 0;
  for (std::int64_t e = 0; e < kEpochs; ++e) epochs_below += per_epoch_p[static_cast<std::size_t>((e * 2 + 0) * kCells + kCoupledCell)] < 0.05f;
  EXPECT_LT(epochs_below, stages::PngSink::epochs_needed(kEpochs, 0.05))
      << "the epochs' own tests, even counted by the binomial rule, must miss this coupling";
  EXPECT_LT(trial_p[kCoupledCell], 0.01f) << "the mean over 40 epochs is far above every surrogate's";
  for (std::int64_t c = 0; c < kCells; ++c) EXPECT_GE(trial_p[static_cast<std::size_t>(kCells + c)], 0.05f) << "uncoupled channel, cell " << c;

  // trial_pac is the mean of pac over the epochs.
  const auto pac = testing::load_floats(dir / "pac.npy");
  const auto trial_pac = testing::load_floats(dir / "trial_pac.npy");
  for (std::int64_t k = 0; k < 2 * kCells; ++k) {
    double sum = 0;
    for (std::int64_t e = 0; e < kEpochs; ++e) sum += pac[static_cast<std::size_t>(e * 2 * kCells + k)];
    EXPECT_NEAR(trial_pac[static_cast<std::size_t>(k)], sum / kEpochs, 1e-6 * sum / kEpochs) << "cell " << k;
  }
  const json& resolved = report["pipeline"][4]["params"];
  EXPECT_EQ(resolved["trials"], "maxstat");
  EXPECT_EQ(resolved["trial_epochs"], kEpochs);
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
  const json none = run_weak(3, dir / "none", {{"trials", "none"}});
  EXPECT_FALSE(fs::exists(dir / "none" / "trial_pvalues.npy"));
}

}  // namespace
}  // namespace pacflow
