#include <cmath>
#include <gtest/gtest.h>
#include <numbers>
#include <vector>

#include "stages/modulation_index/binned_amplitude.hpp"
#include "stages/modulation_index/mi_math.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

using testing::data_dir;

TEST(ModulationIndex, PhaseBinsFollowSpecFormulaAndClamp) {
  const float pi = std::numbers::pi_v<float>;
  EXPECT_EQ(mi::phase_bin(-pi, 18), 0);
  EXPECT_EQ(mi::phase_bin(pi, 18), 17);  // clamped
  EXPECT_EQ(mi::phase_bin(0.0f, 18), 9);
  EXPECT_EQ(mi::phase_bin(-0.01f, 18), 8);
}

TEST(ModulationIndex, UniformAmplitudeGivesZeroAndOneBinGivesOne) {
  const int bins = 4;
  std::int64_t counts[4] = {10, 10, 10, 10};
  double flat[4] = {5, 5, 5, 5};
  EXPECT_NEAR(mi::tort_mi(flat, counts, bins), 0.0, 1e-15);
  double peaked[4] = {0, 0, 7, 0};
  EXPECT_NEAR(mi::tort_mi(peaked, counts, bins), 1.0, 1e-15);
  // Empty bins are left out (p_j = 0), not counted as zero-mean bins.
  std::int64_t sparse[4] = {10, 0, 10, 0};
  double two[4] = {5, 0, 5, 0};
  EXPECT_NEAR(mi::tort_mi(two, sparse, bins), 1.0 - std::log(2.0) / std::log(4.0), 1e-15);
}

TEST(ModulationIndex, RunSumsEqualPerSampleSumsForEveryShift) {
  const std::size_t t = 257;
  std::vector<float> phase(t), amplitude(t);
  for (std::size_t i = 0; i < t; ++i) {
    phase[i] = static_cast<float>(std::remainder(0.11 * static_cast<double>(i) + 0.3 * std::sin(static_cast<double>(i)),
                                                 2 * std::numbers::pi));
    amplitude[i] = 1.0f + 0.5f * static_cast<float>(std::cos(0.05 * static_cast<double>(i * i % 101)));
  }
  const int bins = 18;
  mi::PhaseRuns runs;
  mi::phase_runs(phase, bins, runs);
  std::vector<double> prefix;
  mi::wrapped_prefix_sums(amplitude, prefix);
  for (std::int64_t shift : {0, 1, 100, 256}) {
    std::vector<double> sums(bins), direct(bins, 0.0);
    mi::binned_sums(runs, prefix.data(), shift, sums.data(), bins);
    for (std::size_t i = 0; i < t; ++i)
      direct[static_cast<std::size_t>(mi::phase_bin(phase[i], bins))] += amplitude[(i + static_cast<std::size_t>(shift)) % t];
    for (int j = 0; j < bins; ++j) EXPECT_NEAR(sums[j], direct[j], 1e-9) << "shift " << shift << " bin " << j;
  }
}

void expect_mi_matches(const std::string& folder) {
  const json m = testing::manifest(folder);
  const auto x = testing::load_floats(data_dir() / folder / "x.npy");
  testing::StageHarness h(testing::fixture_stream(folder));
  h.add("bandpass", {{"pha", m["pha_bands_hz"]}, {"amp", m["amp_bands_hz"]}});
  h.add("hilbert", {{"pad", m["hilbert_pad"]}});
  h.add("mi", {{"bins", m["n_bins"]}});
  const Batch batch = h.run(x, 0, h.context().stream().series_count());
  const auto ref = testing::load_doubles(data_dir() / folder / "mi.npy");
  const auto ours = batch.at("pac").values<float>();
  ASSERT_EQ(ours.size(), ref.size());
  for (std::size_t i = 0; i < ref.size(); ++i)
    EXPECT_NEAR(ours[i], ref[i], 2e-5 + 1e-3 * std::abs(ref[i])) << folder << " cell " << i;
}

TEST(ModulationIndex, MatchesFixtureSmall) { expect_mi_matches("small"); }
TEST(ModulationIndex, MatchesFixtureNopadTwelveBins) { expect_mi_matches("nopad_bins12"); }
TEST(ModulationIndex, MatchesFixtureLongSeriesWithoutPrecisionLoss) { expect_mi_matches("long"); }

}  // namespace
}  // namespace pacflow
