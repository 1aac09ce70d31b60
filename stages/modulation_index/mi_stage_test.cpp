// The mi stage's choices: cross-channel pairs (against the fixture), optional outputs (against bin
// means computed here), and its errors.
#include <cmath>
#include <complex>
#include <gtest/gtest.h>
#include <numbers>

#include "engine/api/errors.hpp"
#include "stages/kernels/pac/mi_math.hpp"
#include "stages/modulation_index/mi_stage.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

using testing::data_dir;

testing::StageHarness small_harness(const json& mi_params) {
  const json m = testing::manifest("small");
  testing::StageHarness h(testing::fixture_stream("small"));
  h.add("bandpass", {{"pha", m["pha_bands_hz"]}, {"amp", m["amp_bands_hz"]}});
  h.add("hilbert", {{"pad", m["hilbert_pad"]}});
  h.add("mi", mi_params);
  return h;
}

TEST(MiStage, CrossChannelPairsMatchFixture) {
  const json m = testing::manifest("small");
  const auto x = testing::load_floats(data_dir() / "small" / "x.npy");
  auto h = small_harness({{"bins", m["n_bins"]}, {"pairs", m["cross_pairs_epoch0"]}});
  const Batch batch = h.run(x, 0, 3);  // epoch 0: all three channels
  const auto ref = testing::load_doubles(data_dir() / "small" / "mi_cross.npy");
  const auto ours = batch.at("pac").values<float>();
  ASSERT_EQ(batch.at("pac").shape(), (Shape{3, 3, 4}));
  ASSERT_EQ(ours.size(), ref.size());
  for (std::size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(ours[i], ref[i], 2e-5 + 1e-3 * std::abs(ref[i])) << "cell " << i;
  EXPECT_EQ(h.context().attributes()["channel_pairs"], m["cross_pairs_epoch0"]);
}

// pairs=all: rows (epoch, i, j), phase channel major; the pairs (i, i) equal the diagonal run.
TEST(MiStage, AllPairsAreEveryPhaseChannelWithEveryAmplitudeChannelPerEpoch) {
  const auto x = testing::load_floats(data_dir() / "small" / "x.npy");
  auto all = small_harness({{"pairs", "all"}});
  auto diag = small_harness(json::object());
  const Batch a = all.run(x, 0, 6), d = diag.run(x, 0, 6);
  ASSERT_EQ(a.at("pac").shape(), (Shape{18, 3, 4}));
  const auto pa = a.at("pac").values<float>(), pd = d.at("pac").values<float>();
  for (std::size_t e = 0; e < 2; ++e)
    for (std::size_t c = 0; c < 3; ++c)
      for (std::size_t cell = 0; cell < 12; ++cell)
        EXPECT_EQ(pa[((e * 3 + c) * 3 + c) * 12 + cell], pd[(e * 3 + c) * 12 + cell]) << e << "," << c;
  const auto& layout = all.context().tensors().back().rows;
  EXPECT_EQ(layout.leading, (Shape{2, 9}));
  EXPECT_EQ(layout.group, 3);
}

TEST(MiStage, PairNamingAnAbsentChannelIsRejectedNamingThePair) {
  try {
    small_harness({{"pairs", {{0, 1}, {2, 3}}}});
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "pairs");
    EXPECT_NE(std::string(e.what()).find("[2,3]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("3 channels"), std::string::npos) << e.what();
  }
  EXPECT_THROW(small_harness({{"pairs", "some"}}), ParamError);
  EXPECT_THROW(small_harness({{"pairs", json::array()}}), ParamError);
}

// pairs= is read into its type when the stage is made; the report's mi_pairs writes it back.
TEST(MiStage, PairsAreReadWhenMadeAndWrittenBackAsGiven) {
  for (const json& given : {json("diag"), json("all"), json::parse("[[0,1],[2,0]]")})
    EXPECT_EQ(json(mi::PairSpec::parse("pairs", given)), given);
  const auto refusal = [](const json& given) -> std::string {
    try {
      make_element<stages::ModulationIndexStage>({{"pairs", given}});
    } catch (const ParamError& e) {
      return e.param() + ": " + e.bare_message();
    }
    return "";
  };
  EXPECT_EQ(refusal(json::parse("[[0,1.5]]")), "pairs: pair [0,1.5] holds 1.5, which is not a channel index");
  EXPECT_EQ(refusal(json::parse("[[0,1e300]]")), "pairs: pair [0,1e+300] holds 1e+300, which is not a channel index");
  EXPECT_EQ(refusal(json::parse("[[0,1,2]]")), "pairs: [0,1,2] is not a pair [phase channel, amplitude channel]");
  EXPECT_EQ(refusal(json::parse("[[0,-1]]")), "");  // a channel the input lacks is named when planned
}

// The distribution is the bin means normalised to 1 and the preferred phase the centre of the
// largest, both from the batch's own phase and amplitude binned here.
TEST(MiStage, OptionalOutputsAreTheAmplitudeDistributionAndPreferredPhase) {
  const auto x = testing::load_floats(data_dir() / "small" / "x.npy");
  const int bins = 12;
  auto h = small_harness({{"bins", bins}, {"outputs", "distributions,preferred_phase"}});
  const Batch batch = h.run(x, 2, 1);
  const auto phase = batch.at("phase").values<float>();
  const auto amplitude = batch.at("amplitude").values<float>();
  const auto dist = batch.at("amplitude_distribution").values<float>();
  const auto preferred = batch.at("preferred_phase").values<float>();
  ASSERT_EQ(batch.at("amplitude_distribution").shape(), (Shape{1, 3, 4, bins}));
  const std::size_t t = 1024;
  for (std::size_t p = 0; p < 3; ++p)
    for (std::size_t a = 0; a < 4; ++a) {
      std::vector<double> sums(bins, 0), counts(bins, 0);
      for (std::size_t i = 0; i < t; ++i) {
        const int j = std::clamp(static_cast<int>(std::floor((phase[p * t + i] + std::numbers::pi) * bins / (2 * std::numbers::pi))), 0, bins - 1);
        sums[static_cast<std::size_t>(j)] += amplitude[a * t + i];
        counts[static_cast<std::size_t>(j)] += 1;
      }
      double total = 0;
      std::size_t best = 0;
      for (std::size_t j = 0; j < sums.size(); ++j) {
        sums[j] = counts[j] > 0 ? sums[j] / counts[j] : 0;
        total += sums[j];
        if (sums[j] > sums[best]) best = j;
      }
      for (std::size_t j = 0; j < sums.size(); ++j)
        EXPECT_NEAR(dist[(p * 4 + a) * bins + j], sums[j] / total, 1e-6) << p << "," << a << " bin " << j;
      EXPECT_NEAR(preferred[p * 4 + a], -std::numbers::pi + (static_cast<double>(best) + 0.5) * 2 * std::numbers::pi / bins, 1e-6);
    }
}

TEST(MiStage, UnknownOutputAndMethodAreRejectedListingTheValidOnes) {
  try {
    small_harness({{"outputs", "distributions,phase"}});
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "outputs");
    EXPECT_NE(std::string(e.what()).find("preferred_phase"), std::string::npos) << e.what();
  }
  try {
    small_harness({{"method", "kl"}});
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "method");
    EXPECT_NE(std::string(e.what()).find("must be one of tort, mvl, ndpac, plv, hr, gc"), std::string::npos) << e.what();
  }
  try {
    small_harness({{"method", "ndpac"}, {"ndpac_p", 0}});
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "ndpac_p");
    EXPECT_NE(std::string(e.what()).find("must be from 0 to 1 (0 excluded), got 0"), std::string::npos) << e.what();
  }
}

// The stage computes the chosen measure: mvl here, against Σ A e^{iφ} / T from the batch itself.
TEST(MiStage, MethodParameterSelectsTheMeasure) {
  const auto x = testing::load_floats(data_dir() / "small" / "x.npy");
  auto h = small_harness({{"method", "mvl"}});
  const Batch batch = h.run(x, 1, 1);
  const auto phase = batch.at("phase").values<float>();
  const auto amplitude = batch.at("amplitude").values<float>();
  const auto pac = batch.at("pac").values<float>();
  const std::size_t t = 1024;
  for (std::size_t p = 0; p < 3; ++p)
    for (std::size_t a = 0; a < 4; ++a) {
      std::complex<double> s = 0;
      for (std::size_t i = 0; i < t; ++i) s += static_cast<double>(amplitude[a * t + i]) * std::polar(1.0, static_cast<double>(phase[p * t + i]));
      EXPECT_NEAR(pac[p * 4 + a], std::abs(s) / t, 1e-6 * std::abs(s) / t);
    }
  EXPECT_EQ(h.context().attributes()["mi_method"], "mvl");
  EXPECT_EQ(h.context().attributes()["mi_measure"], "MVL");
}

}  // namespace
}  // namespace pacflow
