// The surrogates stage for every method, swapped epochs and normalisation, against values computed
// here from the batch's own phases and amplitudes.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <gtest/gtest.h>
#include <set>

#include "engine/api/errors.hpp"
#include "stages/kernels/pac/methods/method.hpp"
#include "stages/kernels/pac/mi_math.hpp"
#include "stages/kernels/surrogates/surrogate_math.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

using testing::data_dir;

constexpr std::size_t kSurrogateT = 1024, kSurrogatePha = 3, kSurrogateAmp = 4;

testing::StageHarness surrogate_small_harness(const json& mi_params, const json& surrogate_params, bool envelope = false) {
  const json m = testing::manifest("small");
  testing::StageHarness h(testing::fixture_stream("small"));
  h.add("bandpass", {{"pha", m["pha_bands_hz"]}, {"amp", m["amp_bands_hz"]}}).add("hilbert");
  if (envelope) h.add("envelope_phase");
  h.add("mi", mi_params);
  h.context().begin_element();
  h.add("surrogates", surrogate_params);
  return h;
}

// Tort's MI of one phase band against one amplitude band, per sample (spec §5).
double surrogate_direct_mi(const float* phase, const float* amplitude, int bins) {
  std::vector<double> sums(static_cast<std::size_t>(bins), 0.0);
  std::vector<std::int64_t> counts(sums.size(), 0);
  for (std::size_t i = 0; i < kSurrogateT; ++i) {
    const auto j = static_cast<std::size_t>(mi::phase_bin(phase[i], bins));
    sums[j] += amplitude[i];
    ++counts[j];
  }
  return mi::tort_mi(sums.data(), counts.data(), bins);
}

struct MeanStd {
  double mean, std;
};
MeanStd mean_std(const std::vector<double>& v) {
  double sum = 0, squares = 0;
  for (double x : v) sum += x;
  const double mean = sum / static_cast<double>(v.size());
  for (double x : v) squares += (x - mean) * (x - mean);
  return {mean, std::sqrt(squares / static_cast<double>(v.size()))};
}

TEST(SurrogateMethods, EpochPermutationsArePermutationsDependingOnlyOnSeedAndIndex) {
  std::set<std::vector<std::int64_t>> seen;
  for (std::uint64_t k = 0; k < 200; ++k) {
    std::vector<std::int64_t> perm(7), again(7);
    surrogates::epoch_permutation(42, k, 7, perm.data());
    surrogates::epoch_permutation(42, k, 7, again.data());
    EXPECT_EQ(perm, again);
    std::vector<std::int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6}));
    seen.insert(perm);
  }
  EXPECT_GT(seen.size(), 150u);  // 5040 orderings: few repeats in 200 draws
  std::vector<std::int64_t> a(7), b(7);
  surrogates::epoch_permutation(42, 0, 7, a.data());
  surrogates::epoch_permutation(43, 0, 7, b.data());
  EXPECT_NE(a, b);
}

// Surrogate k of series (e, c) is the MI of (e, c)'s phase with (perm_k(e), c)'s amplitude.
TEST(SurrogateMethods, SwapTrialsPairsEachEpochsPhaseWithThePermutedEpochsAmplitude) {
  const auto x = testing::load_floats(data_dir() / "small" / "x.npy");
  auto h = surrogate_small_harness(json::object(), {{"method", "swap_trials"}, {"n", 6}, {"seed", 3}});
  EXPECT_EQ(h.context().batch_multiple(), 6);  // the whole input in one batch
  const Batch batch = h.run(x, 0, 6);
  std::vector<std::vector<std::int64_t>> perms;
  for (std::uint64_t k = 0; k < 6; ++k) {
    std::vector<std::int64_t> perm(2);
    surrogates::epoch_permutation(3, k, 2, perm.data());
    perms.push_back(perm);
  }
  const auto phase = batch.at("phase").values<float>();
  const auto amplitude = batch.at("amplitude").values<float>();
  for (std::size_t e = 0; e < 2; ++e)
    for (std::size_t c = 0; c < 3; ++c)
      for (std::size_t p = 0; p < kSurrogatePha; ++p)
        for (std::size_t a = 0; a < kSurrogateAmp; ++a) {
          std::vector<double> values;
          for (const auto& perm : perms) {
            const std::size_t other = static_cast<std::size_t>(perm[e]) * 3 + c;
            values.push_back(surrogate_direct_mi(phase.data() + ((e * 3 + c) * kSurrogatePha + p) * kSurrogateT, amplitude.data() + (other * kSurrogateAmp + a) * kSurrogateT, 18));
          }
          const MeanStd ms = mean_std(values);
          const std::size_t cell = (e * 3 + c) * kSurrogatePha * kSurrogateAmp + p * kSurrogateAmp + a;
          EXPECT_NEAR(batch.at("surrogate_mean").values<float>()[cell], ms.mean, 1e-6) << cell;
          EXPECT_NEAR(batch.at("surrogate_std").values<float>()[cell], ms.std, 1e-6) << cell;
        }
}

// The trial-level test pairs each row's phase with its channel's amplitude in every epoch of its
// block: trial_pairings[row][f] is that MI (computed here per sample), NaN past a short last block.
// 6 epochs of one channel in blocks of 4, in one batch: a whole block (each phase meets three
// other amplitudes, in one pass) and a short one, whose rows the stage evaluates a block at a time.
TEST(SurrogateMethods, TrialPairingsPairEachPhaseWithItsChannelsAmplitudeInEveryEpochOfItsBlock) {
  const json m = testing::manifest("small");
  const auto x = testing::load_floats(data_dir() / "small" / "x.npy");
  StreamInfo stream = testing::fixture_stream("small");
  stream.leading_dims = {6, 1};
  testing::StageHarness h(stream);
  h.add("bandpass", {{"pha", m["pha_bands_hz"]}, {"amp", m["amp_bands_hz"]}}).add("hilbert").add("mi");
  h.add("surrogates", {{"n", 4}, {"trials", "maxstat"}, {"trial_block", 4}});
  const Batch batch = h.run(x, 0, 6);
  const auto phase = batch.at("phase").values<float>();
  const auto amplitude = batch.at("amplitude").values<float>();
  const auto pairings = batch.at("trial_pairings").values<double>();
  constexpr std::size_t kChannels = 1, kBlock = 4, kEpochs = 6;
  for (std::size_t e = 0; e < kEpochs; ++e)
    for (std::size_t c = 0; c < kChannels; ++c)
      for (std::size_t slot = 0; slot < kBlock; ++slot) {
        const std::size_t row = e * kChannels + c, f = e / kBlock * kBlock + slot;
        for (std::size_t p = 0; p < kSurrogatePha; ++p)
          for (std::size_t a = 0; a < kSurrogateAmp; ++a) {
            const double value = pairings[((row * kBlock + slot) * kSurrogatePha + p) * kSurrogateAmp + a];
            if (f >= kEpochs) {
              EXPECT_TRUE(std::isnan(value)) << row << ", epoch " << f;
              continue;
            }
            const double expected =
                surrogate_direct_mi(phase.data() + (row * kSurrogatePha + p) * kSurrogateT, amplitude.data() + ((f * kChannels + c) * kSurrogateAmp + a) * kSurrogateT, 18);
            EXPECT_NEAR(value, expected, 1e-6 * expected + 1e-9) << "row " << row << ", epoch " << f << ", cell " << p << "," << a;
          }
      }
}

TEST(SurrogateMethods, SwapTrialsWithOneEpochExplainsWhyItCannotWork) {
  StreamInfo one = testing::fixture_stream("small");
  one.leading_dims = {1, 6};
  testing::StageHarness h(one);
  h.add("bandpass", {{"pha", "4:8:2"}, {"amp", "60:80:2"}}).add("hilbert").add("mi");
  try {
    h.add("surrogates", {{"method", "swap_trials"}});
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "method");
    EXPECT_NE(std::string(e.what()).find("1 epoch"), std::string::npos) << e.what();
  }
  testing::StageHarness h2(testing::fixture_stream("small"));
  h2.add("bandpass", {{"pha", "4:8:2"}, {"amp", "60:80:2"}}).add("hilbert").add("mi");
  EXPECT_THROW(h2.add("surrogates", {{"method", "swap_trials"}, {"shifts", {3, 4}}}), ParamError);
  EXPECT_THROW(h2.add("surrogates", {{"method", "shuffle"}}), ParamError);
  EXPECT_THROW(h2.add("surrogates", {{"norm", "percent"}}), ParamError);
}

// swap_trials compares an epoch with other epochs' amplitudes: a measure that is invariant to the
// amplitude's scale (tort, hr, ndpac, plv, gc) gives every epoch the same z whatever its gain, while
// mvl grows with it, so swap_trials refuses mvl unless asked to run it with a warning.
TEST(SurrogateMethods, SwapTrialsGivesAnEpochsZIndependentOfItsGainOrRefusesMvl) {
  const auto x = testing::load_floats(data_dir() / "small" / "x.npy");
  std::vector<float> louder = x;  // epoch 0 (series 0-2) 8 times louder
  for (std::size_t i = 0; i < 3 * kSurrogateT; ++i) louder[i] *= 8.0f;
  const json swap = {{"method", "swap_trials"}, {"n", 6}, {"seed", 3}};
  for (const std::string method : {"tort", "hr", "ndpac", "plv", "gc"}) {
    auto plain = surrogate_small_harness({{"method", method}}, swap, method == "plv");
    auto loud = surrogate_small_harness({{"method", method}}, swap, method == "plv");
    const Batch a = plain.run(x, 0, 6), b = loud.run(louder, 0, 6);
    const auto z = a.at("pac_z").values<float>();
    const auto z_loud = b.at("pac_z").values<float>();
    for (std::size_t i = 0; i < z.size(); ++i) {
      if (!std::isfinite(z[i])) continue;
      EXPECT_NEAR(z_loud[i], z[i], 2e-3 * std::max(1.0f, std::abs(z[i]))) << method << " " << i;
    }
  }
  try {
    surrogate_small_harness({{"method", "mvl"}}, swap);
    FAIL() << "swap_trials with mvl runs without a word";
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "method");
    EXPECT_NE(std::string(e.what()).find("gain_confound=warn"), std::string::npos) << e.what();
  }
  json warned = swap;
  warned["gain_confound"] = "warn";
  auto plain = surrogate_small_harness({{"method", "mvl"}}, warned);
  auto loud = surrogate_small_harness({{"method", "mvl"}}, warned);
  const auto& warnings = loud.context().warnings();
  EXPECT_TRUE(std::any_of(warnings.begin(), warnings.end(),
                          [](const std::string& w) { return w.find("power differences") != std::string::npos; }));
  const Batch a = plain.run(x, 0, 6), b = loud.run(louder, 0, 6);
  const auto z = a.at("pac_z").values<float>();
  const auto z_loud = b.at("pac_z").values<float>();
  double rise = 0;  // the louder epoch's z over its cells, against the same epoch at its own gain
  for (std::size_t i = 0; i < 3 * kSurrogatePha * kSurrogateAmp; ++i) rise += z_loud[i] - z[i];
  EXPECT_GT(rise / (3 * kSurrogatePha * kSurrogateAmp), 1.0) << "mvl's z follows the epoch's gain";
}

// TensorPAC's normalisations 1–3 (and 4, the z-score), from the same surrogate mean and std.
TEST(SurrogateMethods, NormalisationsSubtractDivideOrBoth) {
  const auto x = testing::load_floats(data_dir() / "small" / "x.npy");
  for (const std::string norm : {"subtract", "divide", "both"}) {
    auto h = surrogate_small_harness(json::object(), {{"shifts", {100, 300, 555, 800}}, {"norm", norm}});
    const Batch batch = h.run(x, 3, 2);
    const auto pac = batch.at("pac").values<float>();
    const auto mean = batch.at("surrogate_mean").values<float>();
    const auto deviation = batch.at("surrogate_std").values<float>();
    const auto z = batch.at("pac_z").values<float>();
    const auto normed = batch.at("pac_norm").values<float>();
    for (std::size_t i = 0; i < pac.size(); ++i) {
      const double m = mean[i];
      const double expected = norm == "subtract" ? pac[i] - m : norm == "divide" ? pac[i] / m : (pac[i] - m) / m;
      EXPECT_NEAR(normed[i], expected, 1e-5 * std::max(1.0, std::abs(expected))) << norm << " cell " << i;
      EXPECT_NEAR(z[i], (pac[i] - m) / deviation[i], 1e-3 * std::max(1.0, std::abs(static_cast<double>(z[i])))) << norm << " cell " << i;
    }
  }
  auto h = surrogate_small_harness(json::object(), {{"n", 4}});
  EXPECT_FALSE(h.context().provides("pac_norm"));  // z: pac_z is the normalised PAC
}

// Surrogates compute the mi stage's own measure: for each method the surrogate mean is the mean of
// the measure over the shifted amplitudes (the method is checked against its direct definition in
// methods_test.cpp), and the observed value the pac the mi stage wrote.
TEST(SurrogateMethods, EveryMethodsSurrogatesUseTheMiStagesMeasure) {
  const auto x = testing::load_floats(data_dir() / "small" / "x.npy");
  const std::vector<std::int64_t> shifts = {90, 400, 777};
  for (const std::string method : {"tort", "mvl", "ndpac", "plv", "hr", "gc"}) {
    const bool plv = method == "plv";
    auto h = surrogate_small_harness({{"method", method}, {"bins", 12}}, {{"shifts", shifts}}, plv);
    const Batch batch = h.run(x, 1, 1);
    mi::MethodSettings settings;
    settings.kind = mi::parse_method(method);
    settings.bins = 12;
    const auto m = mi::make_method(settings, kSurrogateT);
    const float* phase = batch.at("phase").values<float>().data();
    const float* amplitude = batch.at("amplitude").values<float>().data();
    const float* envelope = plv ? batch.at("envelope_phase").values<float>().data() : nullptr;
    std::vector<std::vector<double>> per_shift;
    for (auto s : shifts) {
      // The amplitude side shifted by s, then evaluated unshifted.
      std::vector<float> amp(kSurrogateAmp * kSurrogateT), env(plv ? kSurrogatePha * kSurrogateAmp * kSurrogateT : 0);
      for (std::size_t i = 0; i < amp.size(); ++i) amp[i] = amplitude[i / kSurrogateT * kSurrogateT + (i % kSurrogateT + static_cast<std::size_t>(s)) % kSurrogateT];
      for (std::size_t i = 0; i < env.size(); ++i) env[i] = envelope[i / kSurrogateT * kSurrogateT + (i % kSurrogateT + static_cast<std::size_t>(s)) % kSurrogateT];
      std::vector<double> out(kSurrogatePha * kSurrogateAmp);
      const std::int64_t zero[1] = {0};
      m->evaluate({phase, amp.data(), plv ? env.data() : nullptr, kSurrogatePha, kSurrogateAmp, kSurrogateT}, zero, out.data());
      per_shift.push_back(out);
    }
    const auto mean = batch.at("surrogate_mean").values<float>();
    const auto pvalues = batch.at("pvalues").values<float>();
    const auto pac = batch.at("pac").values<float>();
    for (std::size_t c = 0; c < kSurrogatePha * kSurrogateAmp; ++c) {
      std::vector<double> v;
      for (const auto& o : per_shift) v.push_back(o[c]);
      const double expected = mean_std(v).mean;
      EXPECT_NEAR(mean[c], expected, 1e-6 * std::max(1e-3, std::abs(expected))) << method << " cell " << c;
      const auto exceed = std::count_if(v.begin(), v.end(), [&](double s) { return s >= pac[c]; });
      EXPECT_NEAR(pvalues[c], (1.0 + static_cast<double>(exceed)) / 4.0, 1e-6) << method << " cell " << c;
    }
  }
}

// Past row_memory a row's alignments are evaluated and summarised a chunk at a time: with
// row_memory=0, one alignment at a time, every method and kind of surrogate gives every tensor of
// the batch (statistics, the surrogates' values, the trial-level test's pairings) the bits of all
// alignments at once.
TEST(SurrogateMethods, RowMemoryChunksTheAlignmentsWithoutChangingABit) {
  const auto x = testing::load_floats(data_dir() / "small" / "x.npy");
  for (const std::string method : {"tort", "mvl", "ndpac", "plv", "hr", "gc"})
    for (const std::string kind : {"timeshift", "timelag", "swap_trials"}) {
      const bool plv = method == "plv";
      json params = {{"method", kind}, {"n", 9}, {"seed", 5}, {"outputs", "values"}, {"trials", "maxstat"},
                     {"trial_block", 3}, {"gain_confound", "warn"}, {"norm", "both"}};
      if (kind != "swap_trials") params["min_shift"] = "10smp";
      auto all = surrogate_small_harness({{"method", method}}, params, plv);
      params["row_memory"] = 0;
      auto chunked = surrogate_small_harness({{"method", method}}, params, plv);
      const Batch a = all.run(x, 0, 6), b = chunked.run(x, 0, 6);
      ASSERT_EQ(a.tensors.size(), b.tensors.size());
      ASSERT_TRUE(a.has("surrogate_values") && a.has("pvalues_maxstat")) << method << " " << kind;
      for (const auto& [name, tensor] : a.tensors) {
        const Tensor& other = b.at(name);
        ASSERT_EQ(tensor.shape(), other.shape()) << name;
        ASSERT_EQ(tensor.dtype(), other.dtype()) << name;
        EXPECT_EQ(std::memcmp(tensor.address(), other.address(), tensor.bytes()), 0)
            << method << " " << kind << ": " << name << " differs";
      }
    }
}

// Cross-channel pairs: surrogates have the mi stage's rows; the pair (i, i) equals the diagonal run.
TEST(SurrogateMethods, SurrogatesFollowTheMiStagesChannelPairs) {
  const auto x = testing::load_floats(data_dir() / "small" / "x.npy");
  auto pairs = surrogate_small_harness({{"pairs", {{1, 1}, {0, 2}}}}, {{"n", 5}});
  auto diag = surrogate_small_harness(json::object(), {{"n", 5}});
  const Batch a = pairs.run(x, 3, 3), d = diag.run(x, 3, 3);
  ASSERT_EQ(a.at("pac_z").shape(), (Shape{2, kSurrogatePha, kSurrogateAmp}));
  const auto za = a.at("surrogate_mean").values<float>(), zd = d.at("surrogate_mean").values<float>();
  for (std::size_t c = 0; c < kSurrogatePha * kSurrogateAmp; ++c) EXPECT_EQ(za[c], zd[kSurrogatePha * kSurrogateAmp + c]);
}

}  // namespace
}  // namespace pacflow
