// The trial-level test (spec §6.4) against the definition computed here loop by loop: the mean over
// epochs of every group's measure, each epoch permutation's mean likewise (epoch e's phase with the
// amplitude of epoch perm(e) of its block), z and p of the observed mean, corrected across the
// group's cells by max statistic, Benjamini-Hochberg or Bonferroni. The sums do not depend on how
// the blocks are cut into batches, a checkpoint resumes them exactly, the source's excluded series
// stay out of the means and the permutations, and on data with no coupling the family-wise error
// of max-T is the nominal one.
#include "stages/kernels/surrogates/trial_statistics.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <numeric>
#include <random>
#include <tuple>

#include "engine/api/errors.hpp"
#include "stages/kernels/surrogates/surrogate_math.hpp"
#include "stages/surrogates/surrogates_stage.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow::surrogates {
namespace {

// Nine epochs in blocks of four: 0-3, 4-7 and the short block {8}.
constexpr std::int64_t kTrialEpochs = 9, kTrialChannels = 3, kPerm = 39, kTrialPha = 2, kTrialAmp = 3, kTrialCells = kTrialPha * kTrialAmp;
constexpr std::int64_t kBlock = 4, kRow = kBlock * kTrialCells;
constexpr std::int64_t kBlockSeries = kBlock * kTrialChannels;

// pairings[series][epoch of the block][cell]: channel 0 coupled in cell 4 (each epoch's own
// amplitude pairs higher than another epoch's), the rest noise; NaN past the short last block.
std::vector<double> make_pairings() {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(1.0, 0.2);
  std::vector<double> v(static_cast<std::size_t>(kTrialEpochs * kTrialChannels * kRow));
  for (auto& x : v) x = noise(rng);
  for (std::int64_t e = 0; e < kTrialEpochs; ++e) {
    v[static_cast<std::size_t>((e * kTrialChannels + 0) * kRow + (e % kBlock) * kTrialCells + 4)] += 0.5;
    if (e == kTrialEpochs - 1)
      for (std::int64_t c = 0; c < kTrialChannels; ++c)
        std::fill_n(v.begin() + (e * kTrialChannels + c) * kRow + kTrialCells, kTrialCells, std::nan(""));
  }
  return v;
}

// One family per channel unless asked: the reference below tests each channel's cells.
TrialLayout layout(TrialTest test, std::vector<std::int64_t> excluded = {}, TrialFamily family = TrialFamily::Cells) {
  return {RowLayout{}, kTrialEpochs, kTrialChannels, kPerm, {kTrialPha, kTrialAmp}, test, std::move(excluded), 1, {}, 42, kBlock, family, false, {}};
}

// Each series' z (pac_z, which the contrast reads): here its own pairing, unless `z` is given.
std::vector<double> own_pairings(const std::vector<double>& values) {
  std::vector<double> z;
  for (std::int64_t s = 0; s < kTrialEpochs * kTrialChannels; ++s)
    for (std::int64_t q = 0; q < kTrialCells; ++q)
      z.push_back(values[static_cast<std::size_t>(s * kRow + (s / kTrialChannels % kBlock) * kTrialCells + q)]);
  return z;
}

void add_batch(TrialStatistics& stats, const std::vector<double>& values, std::int64_t first, std::int64_t count,
               const std::vector<double>& z = {}) {
  Batch batch;
  batch.first_series = first;
  batch.series_count = count;
  auto t = batch.emplace(kTrialPairingsTensor, {kBlock, kTrialPha, kTrialAmp}, DType::Float64).values<double>();
  std::copy_n(values.begin() + first * kRow, count * kRow, t.begin());
  const auto zs = z.empty() ? own_pairings(values) : z;
  auto zt = batch.emplace(kEpochZ, {kTrialPha, kTrialAmp}, DType::Float32).values<float>();
  std::transform(zs.begin() + first * kTrialCells, zs.begin() + (first + count) * kTrialCells, zt.begin(),
                 [](double v) { return static_cast<float>(v); });
  stats.add(batch);
}

// Runs the statistics over the series in batches of `batch_series` series; returns trial_pac,
// trial_z, trial_pvalues one after the other.
std::vector<float> run(TrialStatistics& stats, const std::vector<double>& values, std::int64_t batch_series,
                       std::int64_t from = 0) {
  for (std::int64_t first = from; first < kTrialEpochs * kTrialChannels; first += batch_series)
    add_batch(stats, values, first, std::min(batch_series, kTrialEpochs * kTrialChannels - first));
  Batch out;
  stats.finish(out);
  std::vector<float> all;
  for (const char* name : {kTrialPac, kTrialZ, kTrialPvalues}) {
    const auto v = out.at(name).values<float>();
    EXPECT_EQ(static_cast<std::int64_t>(v.size()), kTrialChannels * kTrialCells) << name;
    all.insert(all.end(), v.begin(), v.end());
  }
  return all;
}

struct Reference {
  std::vector<double> mean, z, p, pmax, pmax_t;  // [channel][cell]
};

// Max-T's statistic: each arrangement k standardised by the mean and std over all of them.
std::vector<std::vector<double>> standardised(const std::vector<std::vector<double>>& m) {
  const auto draws = static_cast<double>(m.size());
  std::vector<double> all_mu(kTrialCells, 0.0), all_sd(kTrialCells, 0.0);
  for (const auto& row : m)
    for (std::int64_t q = 0; q < kTrialCells; ++q) all_mu[q] += row[q] / draws;
  for (const auto& row : m)
    for (std::int64_t q = 0; q < kTrialCells; ++q) all_sd[q] += (row[q] - all_mu[q]) * (row[q] - all_mu[q]) / draws;
  auto t = m;
  for (auto& row : t)
    for (std::int64_t q = 0; q < kTrialCells; ++q) row[q] = (row[q] - all_mu[q]) / std::sqrt(all_sd[q]);
  return t;
}

// The definition, directly: m[0] the mean of each epoch's own pairing over the included epochs,
// m[k] the mean of each epoch's pairing with epoch perm_k(e) of its block (permutations keyed by
// (seed, block, condition)); population std of the permuted means.
// With `every_channel`, max-T's maximum of each arrangement is taken over every channel's cells.
Reference reference(const std::vector<double>& v, const std::vector<std::int64_t>& excluded = {},
                    bool every_channel = false) {
  Reference r;
  std::vector<std::vector<std::vector<double>>> means;  // [channel][k][cell]
  const auto pairing = [&](std::int64_t e, std::int64_t c, std::int64_t f, std::int64_t q) {
    return v[static_cast<std::size_t>((e * kTrialChannels + c) * kRow + (f % kBlock) * kTrialCells + q)];
  };
  for (std::int64_t c = 0; c < kTrialChannels; ++c) {
    std::vector<std::vector<double>> m(kPerm + 1, std::vector<double>(kTrialCells, 0.0));
    std::int64_t n = 0;
    for (std::int64_t b = 0; b * kBlock < kTrialEpochs; ++b) {
      std::vector<std::int64_t> in;
      for (std::int64_t e = b * kBlock; e < std::min((b + 1) * kBlock, kTrialEpochs); ++e)
        if (std::find(excluded.begin(), excluded.end(), e * kTrialChannels + c) == excluded.end()) in.push_back(e);
      n += static_cast<std::int64_t>(in.size());
      std::vector<std::int64_t> perm(in.size());
      for (std::int64_t k = 0; k <= kPerm; ++k) {
        if (k > 0)
          trial_permutation(rng::key(rng::key(42, static_cast<std::uint64_t>(b)), 0), static_cast<std::uint64_t>(k - 1),
                            static_cast<std::int64_t>(in.size()), perm.data());
        for (std::size_t i = 0; i < in.size(); ++i)
          for (std::int64_t q = 0; q < kTrialCells; ++q)
            m[k][q] += pairing(in[i], c, k == 0 ? in[i] : in[static_cast<std::size_t>(perm[i])], q);
      }
    }
    for (auto& row : m)
      for (auto& x : row) x /= static_cast<double>(n);
    means.push_back(std::move(m));
  }
  // The maxima of each arrangement over a family: the channel's cells, or every channel's.
  std::vector<std::vector<double>> max_k(kTrialChannels, std::vector<double>(kPerm + 1, -1e300)), max_t = max_k;
  for (std::int64_t c = 0; c < kTrialChannels; ++c) {
    const auto t = standardised(means[c]);
    for (std::int64_t into = 0; into < kTrialChannels; ++into) {
      if (into != c && !every_channel) continue;
      for (std::int64_t k = 1; k <= kPerm; ++k)
        for (std::int64_t q = 0; q < kTrialCells; ++q) {
          max_k[into][k] = std::max(max_k[into][k], means[c][k][q]);
          max_t[into][k] = std::max(max_t[into][k], t[k][q]);
        }
    }
  }
  for (std::int64_t c = 0; c < kTrialChannels; ++c) {
    const auto& m = means[c];
    const auto t = standardised(m);
    for (std::int64_t q = 0; q < kTrialCells; ++q) {
      double sum = 0, sq = 0;
      std::int64_t above = 0, above_max = 0, above_t = 0;
      const double z0 = t[0][q];
      for (std::int64_t k = 1; k <= kPerm; ++k) {
        sum += m[k][q];
        above += m[k][q] >= m[0][q];
        above_max += max_k[c][k] >= m[0][q];
        above_t += max_t[c][k] >= z0;
      }
      const double mean_k = sum / kPerm;
      for (std::int64_t k = 1; k <= kPerm; ++k) sq += (m[k][q] - mean_k) * (m[k][q] - mean_k);
      r.mean.push_back(m[0][q]);
      r.z.push_back((m[0][q] - mean_k) / std::sqrt(sq / kPerm));
      r.p.push_back((1.0 + static_cast<double>(above)) / (kPerm + 1));
      r.pmax.push_back((1.0 + static_cast<double>(above_max)) / (kPerm + 1));
      r.pmax_t.push_back((1.0 + static_cast<double>(above_t)) / (kPerm + 1));
    }
  }
  return r;
}

void expect_near_all(const std::vector<float>& got, std::size_t at, const std::vector<double>& want, double tol,
                     const char* what) {
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[at + i], want[i], tol * std::max(1.0, std::abs(want[i]))) << what << " [" << i << "]";
}

TEST(TrialStatistics, MeanZAndMaxTPEqualTheDefinition) {
  const auto values = make_pairings();
  TrialStatistics stats(layout(TrialTest::Maxstat));
  const auto got = run(stats, values, kBlockSeries);
  const Reference want = reference(values);
  const std::size_t n = kTrialChannels * kTrialCells;
  expect_near_all(got, 0, want.mean, 1e-6, "trial_pac");
  expect_near_all(got, n, want.z, 1e-5, "trial_z");
  expect_near_all(got, 2 * n, want.pmax_t, 1e-7, "trial_pvalues");
  EXPECT_LT(got[2 * n + 4], 0.05f) << "the coupled cell beats the permutations' largest z";
}

// The default family: max-T's maximum over every channel's cells, so one p-value answers "is there
// coupling anywhere"; the means and z are the same as per channel.
TEST(TrialStatistics, FamilyOfEveryChannelTakesMaxTOverAllTheirCells) {
  const auto values = make_pairings();
  TrialStatistics stats(layout(TrialTest::Maxstat, {}, TrialFamily::Channels));
  const auto got = run(stats, values, kBlockSeries);
  const Reference want = reference(values, {}, true);
  const std::size_t n = kTrialChannels * kTrialCells;
  expect_near_all(got, 0, want.mean, 1e-6, "trial_pac");
  expect_near_all(got, n, want.z, 1e-5, "trial_z");
  expect_near_all(got, 2 * n, want.pmax_t, 1e-7, "trial_pvalues");
  const Reference per_channel = reference(values);
  for (std::size_t i = 0; i < n; ++i) EXPECT_GE(want.pmax_t[i], per_channel.pmax_t[i]) << "a larger family: larger p";
  TrialStatistics raw(layout(TrialTest::MaxstatRaw, {}, TrialFamily::Channels));
  expect_near_all(run(raw, values, kBlockSeries), 2 * n, want.pmax, 1e-7, "maxstat_raw");
  // Bonferroni over the whole family multiplies by every channel's cells.
  TrialStatistics bonferroni(layout(TrialTest::Bonferroni, {}, TrialFamily::Channels));
  std::vector<double> bonf;
  for (double p : want.p) bonf.push_back(std::min(1.0, p * kTrialCells * kTrialChannels));
  expect_near_all(run(bonferroni, values, kBlockSeries), 2 * n, bonf, 1e-6, "bonferroni");
}

TEST(TrialStatistics, RawMaxStatisticIsTensorPacsMaxOverTheRawMeans) {
  const auto values = make_pairings();
  TrialStatistics stats(layout(TrialTest::MaxstatRaw));
  expect_near_all(run(stats, values, kBlockSeries), 2 * kTrialChannels * kTrialCells, reference(values).pmax, 1e-7, "trial_pvalues");
}

// A cell whose measure sits higher under the null (a wide band) takes the raw maximum of every
// surrogate, so a well-coupled cell below that level is never significant by the raw maximum;
// max-T compares each cell with its own surrogates.
// A cell whose measure sits higher under the null (a wide band) takes the raw maximum of every
// permutation, so a well-coupled cell below that level is never significant by the raw maximum;
// max-T compares each cell with its own permutations.
TEST(TrialStatistics, MaxTFindsACouplingThatACellWithAHigherNullLevelHidesFromTheRawMaximum) {
  auto values = make_pairings();
  for (std::int64_t s = 0; s < kTrialEpochs * kTrialChannels; ++s)
    for (std::int64_t f = 0; f < kBlock; ++f) values[static_cast<std::size_t>(s * kRow + f * kTrialCells + 0)] += 2.0;
  const std::size_t coupled = 2 * kTrialChannels * kTrialCells + 4;  // channel 0, cell 4
  TrialStatistics raw(layout(TrialTest::MaxstatRaw));
  EXPECT_EQ(run(raw, values, kBlockSeries)[coupled], 1.0f);
  TrialStatistics max_t(layout(TrialTest::Maxstat));
  EXPECT_LT(run(max_t, values, kBlockSeries)[coupled], 0.05f);
}

TEST(TrialStatistics, UncorrectedFdrAndBonferroniCorrectTheRawPOfEachChannel) {
  const auto values = make_pairings();
  const Reference want = reference(values);
  const std::size_t n = kTrialChannels * kTrialCells;
  TrialStatistics raw(layout(TrialTest::Uncorrected));
  expect_near_all(run(raw, values, kBlockSeries), 2 * n, want.p, 1e-7, "uncorrected");
  TrialStatistics bonferroni(layout(TrialTest::Bonferroni));
  std::vector<double> bonf;
  for (double p : want.p) bonf.push_back(std::min(1.0, p * kTrialCells));
  expect_near_all(run(bonferroni, values, kBlockSeries), 2 * n, bonf, 1e-6, "bonferroni");
  // Benjamini-Hochberg per channel: p_(i) m / i, running minimum from the largest rank down.
  std::vector<double> fdr(want.p.size());
  for (std::int64_t c = 0; c < kTrialChannels; ++c) {
    std::vector<std::int64_t> order(kTrialCells);
    std::iota(order.begin(), order.end(), 0);
    const auto p = [&](std::int64_t q) { return want.p[static_cast<std::size_t>(c * kTrialCells + q)]; };
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return p(a) < p(b); });
    double running = 1.0;
    for (std::int64_t i = kTrialCells; i-- > 0;) {
      running = std::min(running, p(order[i]) * kTrialCells / static_cast<double>(i + 1));
      fdr[static_cast<std::size_t>(c * kTrialCells + order[i])] = running;
    }
  }
  TrialStatistics bh(layout(TrialTest::Fdr));
  expect_near_all(run(bh, values, 2 * kBlockSeries), 2 * n, fdr, 1e-6, "fdr");
}

TEST(TrialStatistics, BatchSizeDoesNotChangeABit) {
  const auto values = make_pairings();
  TrialStatistics whole(layout(TrialTest::Maxstat));
  const auto reference_bits = run(whole, values, kTrialEpochs * kTrialChannels);
  for (std::int64_t batch : {kBlockSeries, 2 * kBlockSeries}) {
    TrialStatistics stats(layout(TrialTest::Maxstat));
    EXPECT_EQ(run(stats, values, batch), reference_bits) << "batches of " << batch;
  }
}

TEST(TrialStatistics, ABatchThatSplitsABlockIsALogicError) {
  const auto values = make_pairings();
  TrialStatistics stats(layout(TrialTest::Maxstat));
  EXPECT_THROW(add_batch(stats, values, 0, kTrialChannels), std::logic_error);
  EXPECT_THROW(add_batch(stats, values, kTrialChannels, kBlockSeries), std::logic_error);
}

// With no coupling, every epoch's own pairing is one more draw like its pairings with the other
// epochs of its block: the permutation test is exact, so max-T over each group's cells rejects in
// about 5 % of the groups.
TEST(TrialStatistics, MaxTHoldsItsFamilyWiseErrorOnDataWithNoCoupling) {
  constexpr std::int64_t kGroups = 400, kE = 8, kB = 4, kN = 99, kC = 6;
  std::mt19937_64 rng(11);
  std::gamma_distribution<double> skewed(2.0, 0.5);  // a measure's skewed null distribution
  std::vector<double> v(static_cast<std::size_t>(kE * kGroups * kB * kC));
  for (auto& x : v) x = skewed(rng);
  TrialLayout null{RowLayout{}, kE, kGroups, kN, {2, 3}, TrialTest::Maxstat, {}, 1, {}, 42, kB, TrialFamily::Cells, false, {}};
  TrialStatistics stats(null);
  Batch batch;
  batch.first_series = 0;
  batch.series_count = kE * kGroups;
  auto t = batch.emplace(kTrialPairingsTensor, {kB, 2, 3}, DType::Float64).values<double>();
  std::copy(v.begin(), v.end(), t.begin());
  stats.add(batch);
  Batch out;
  stats.finish(out);
  const auto p = out.at(kTrialPvalues).values<float>();
  std::int64_t rejected = 0;
  for (std::int64_t g = 0; g < kGroups; ++g)
    rejected += std::any_of(p.begin() + g * kC, p.begin() + (g + 1) * kC, [](float x) { return x <= 0.05f; });
  // 5 % of 400 is 20; a binomial's 99.9 % range is about 8 to 36.
  RecordProperty("rejected", static_cast<int>(rejected));
  EXPECT_GE(rejected, 8);
  EXPECT_LE(rejected, 36);
}

// Many null datasets of ten channels each: with the family of every channel, max-T rejects anywhere
// in about 5 % of the datasets; with one family per channel, in about 1 - 0.95^10 = 40 %.
TEST(TrialStatistics, FamilyOfEveryChannelHoldsItsErrorAcrossTheChannels) {
  constexpr std::int64_t kDatasets = 300, kGroups = 10, kE = 8, kB = 4, kN = 99, kC = 6;
  std::mt19937_64 rng(13);
  std::gamma_distribution<double> skewed(2.0, 0.5);
  std::int64_t anywhere[2] = {0, 0};  // datasets with a rejection: family of channels, of cells
  for (std::int64_t d = 0; d < kDatasets; ++d) {
    std::vector<double> v(static_cast<std::size_t>(kE * kGroups * kB * kC));
    for (auto& x : v) x = skewed(rng);
    for (TrialFamily family : {TrialFamily::Channels, TrialFamily::Cells}) {
      TrialStatistics stats({RowLayout{}, kE, kGroups, kN, {2, 3}, TrialTest::Maxstat, {}, 1, {},
                             static_cast<std::uint64_t>(d), kB, family, false, {}});
      Batch batch;
      batch.first_series = 0;
      batch.series_count = kE * kGroups;
      auto t = batch.emplace(kTrialPairingsTensor, {kB, 2, 3}, DType::Float64).values<double>();
      std::copy(v.begin(), v.end(), t.begin());
      stats.add(batch);
      Batch out;
      stats.finish(out);
      const auto p = out.at(kTrialPvalues).values<float>();
      anywhere[family == TrialFamily::Cells] += std::any_of(p.begin(), p.end(), [](float x) { return x <= 0.05f; });
    }
  }
  RecordProperty("channels_family_rejections", static_cast<int>(anywhere[0]));
  RecordProperty("cells_family_rejections", static_cast<int>(anywhere[1]));
  // 5 % of 300 is 15 (a binomial's 99.9 % range about 4 to 29); 40 % is 120.
  EXPECT_GE(anywhere[0], 4);
  EXPECT_LE(anywhere[0], 29);
  EXPECT_GE(anywhere[1], 80);
}

TEST(TrialStatistics, ExcludedSeriesStayOutOfTheMeans) {
  auto values = make_pairings();
  const std::vector<std::int64_t> excluded{1, 4};  // channel 1 in epochs 0 and 1: NaN rows from the engine
  for (auto s : excluded) std::fill_n(values.begin() + s * kRow, kRow, std::nan(""));
  for (std::int64_t e : {2, 3})  // the other epochs of the block pair with their stand-in amplitudes
    std::fill_n(values.begin() + (e * kTrialChannels + 1) * kRow, 2 * kTrialCells, std::nan(""));
  TrialStatistics stats(layout(TrialTest::Maxstat, excluded));
  const auto got = run(stats, values, kBlockSeries);
  const Reference want = reference(values, excluded);
  expect_near_all(got, 0, want.mean, 1e-6, "trial_pac");
  for (std::int64_t q = 0; q < kTrialCells; ++q)
    for (std::int64_t output : {0, 1, 2})
      EXPECT_TRUE(std::isfinite(got[static_cast<std::size_t>((output * kTrialChannels + 1) * kTrialCells + q)]))
          << "output " << output << ", cell " << q;
}

TEST(TrialStatistics, ACheckpointResumesTheSumsExactly) {
  const auto values = make_pairings();
  TrialStatistics whole(layout(TrialTest::Fdr));
  const auto uninterrupted = run(whole, values, kBlockSeries);
  const testing::ScratchDir dir("trial_checkpoint");
  json state;
  {
    TrialStatistics first(layout(TrialTest::Fdr));
    first.resume(dir.path(), nullptr, 0);
    for (std::int64_t s = 0; s < 2 * kBlockSeries; s += kBlockSeries) {
      add_batch(first, values, s, kBlockSeries);
      state = first.checkpoint();  // the record after each batch
    }
    // A batch added and checkpointed but whose record never landed (a kill): the state names the
    // file of the last record, which the next write did not touch.
    add_batch(first, std::vector<double>(values.size(), 0.0), 2 * kBlockSeries, kTrialChannels);
    first.checkpoint();
  }
  TrialStatistics resumed(layout(TrialTest::Fdr));
  resumed.resume(dir.path(), state, 2 * kBlockSeries);
  EXPECT_EQ(run(resumed, values, kBlockSeries, 2 * kBlockSeries), uninterrupted);

  TrialStatistics wrong(layout(TrialTest::Fdr));
  EXPECT_THROW(wrong.resume(dir.path(), state, kBlockSeries), InputError) << "the record holds two blocks, not one";
}

// Two conditions (epochs 0, 2, 4 and 1, 3): each condition's mean is tested on its own, and their
// difference against permutations of the labels, here with a difference planted in channel 1, cell 2.
TEST(TrialStatistics, TwoConditionsAreTestedEachAndTheirDifferenceByPermutedLabels) {
  auto values = make_pairings();
  const std::vector<std::int64_t> labels{0, 1, 0, 1, 0, 1, 0, 1, 0};
  const auto own = [](std::int64_t e, std::int64_t c, std::int64_t q) {  // epoch e's own pairing
    return static_cast<std::size_t>((e * kTrialChannels + c) * kRow + (e % kBlock) * kTrialCells + q);
  };
  for (std::int64_t e : {0, 2, 4, 6, 8}) values[own(e, 1, 2)] += 1.0;
  TrialLayout two = layout(TrialTest::Uncorrected);
  two.conditions = 2;
  two.epoch_conditions = labels;
  TrialStatistics stats(two);
  for (std::int64_t first = 0; first < kTrialEpochs * kTrialChannels; first += kBlockSeries)
    add_batch(stats, values, first, std::min(kBlockSeries, kTrialEpochs * kTrialChannels - first));
  Batch out;
  stats.finish(out);
  ASSERT_EQ(out.at(kTrialPac).size(), static_cast<std::size_t>(2 * kTrialChannels * kTrialCells)) << "[conditions][channels]…";
  // Condition 1's mean of channel 2, cell 5, and the contrast of every cell, from the definition.
  const auto observed = [&](std::int64_t e, std::int64_t c, std::int64_t q) { return values[own(e, c, q)]; };
  EXPECT_NEAR(out.at(kTrialPac).values<float>()[static_cast<std::size_t>((kTrialChannels + 2) * kTrialCells + 5)],
              (observed(1, 2, 5) + observed(3, 2, 5) + observed(5, 2, 5) + observed(7, 2, 5)) / 4, 1e-6);
  // The contrast is of the epochs' z (here: their own pairings, as add_batch gives them).
  const auto net = [&](std::int64_t e, std::int64_t c, std::int64_t q) { return observed(e, c, q); };
  const auto difference = [&](std::int64_t c, std::int64_t q, const std::vector<std::int64_t>& of) {
    double sum[2] = {0, 0};
    std::int64_t n[2] = {0, 0};
    for (std::int64_t e = 0; e < kTrialEpochs; ++e) {
      if (std::isnan(net(e, c, q))) continue;
      sum[of[static_cast<std::size_t>(e)]] += net(e, c, q);
      ++n[of[static_cast<std::size_t>(e)]];
    }
    return sum[0] / static_cast<double>(n[0]) - sum[1] / static_cast<double>(n[1]);
  };
  // The test's statistic: Welch's t of the epochs' z, mean difference over its standard error.
  const auto welch = [&](std::int64_t c, std::int64_t q, const std::vector<std::int64_t>& of) {
    std::vector<double> in[2];
    for (std::int64_t e = 0; e < kTrialEpochs; ++e)
      if (!std::isnan(net(e, c, q))) in[of[static_cast<std::size_t>(e)]].push_back(net(e, c, q));
    double mean[2], variance[2];
    for (int l = 0; l < 2; ++l) {
      mean[l] = std::accumulate(in[l].begin(), in[l].end(), 0.0) / static_cast<double>(in[l].size());
      double sq = 0;
      for (double x : in[l]) sq += (x - mean[l]) * (x - mean[l]);
      variance[l] = sq / static_cast<double>(in[l].size() - 1);
    }
    return (mean[0] - mean[1]) /
           std::sqrt(variance[0] / static_cast<double>(in[0].size()) + variance[1] / static_cast<double>(in[1].size()));
  };
  std::vector<std::vector<std::int64_t>> permuted;
  for (std::int64_t k = 0; k < kPerm; ++k) {
    std::vector<std::int64_t> perm(kTrialEpochs), relabelled(kTrialEpochs);
    condition_permutation(42, static_cast<std::uint64_t>(k), kTrialEpochs, perm.data());
    for (std::int64_t e = 0; e < kTrialEpochs; ++e)
      relabelled[static_cast<std::size_t>(e)] = labels[static_cast<std::size_t>(perm[static_cast<std::size_t>(e)])];
    permuted.push_back(relabelled);
  }
  const auto d = out.at(kContrastPac).values<float>();
  const auto p = out.at(kContrastPvalues).values<float>();
  for (std::int64_t c = 0; c < kTrialChannels; ++c)
    for (std::int64_t q = 0; q < kTrialCells; ++q) {
      const double want = difference(c, q, labels), t = welch(c, q, labels);
      std::int64_t above = 0;
      for (const auto& relabelled : permuted) above += std::abs(welch(c, q, relabelled)) >= std::abs(t) * (1 - 1e-12);
      const auto i = static_cast<std::size_t>(c * kTrialCells + q);
      EXPECT_NEAR(d[i], want, 1e-6) << "channel " << c << " cell " << q;
      EXPECT_FLOAT_EQ(p[i], static_cast<float>((1.0 + static_cast<double>(above)) / (kPerm + 1)))
          << "channel " << c << " cell " << q;
    }
  // Nine epochs have 126 labellings with five in condition 0: the planted difference is the largest
  // of them, so only labellings equal to the observed one reach it.
  EXPECT_LT(p[static_cast<std::size_t>(kTrialCells + 2)], 0.1f);
}

// A condition whose amplitude has more power moves every pairing with its epochs' amplitudes, the
// observed and the permuted ones (the measure's null level, issue 36): the contrast reads each
// epoch's z against its own surrogates, not the pairings, so it does not change by a bit, where
// the conditions' raw means differ by all of it (the simulation in inference_simulation_test.cpp
// shows the z-based contrast holding its level under such a power difference).
TEST(TrialStatistics, TheContrastReadsEachEpochsZNotItsPairings) {
  const std::vector<std::int64_t> labels{0, 1, 0, 1, 0, 1, 0, 1, 0};
  const auto z = own_pairings(make_pairings());  // each epoch's z: the same with or without the power
  const auto contrast = [&](double power) {
    auto values = make_pairings();
    for (std::int64_t e = 0; e < kTrialEpochs; ++e)
      for (std::int64_t c = 0; c < kTrialChannels; ++c)
        for (std::int64_t f = e / kBlock * kBlock; f < std::min(e / kBlock * kBlock + kBlock, kTrialEpochs); ++f)
          if (labels[static_cast<std::size_t>(f)] == 1)  // condition 1's amplitude
            for (std::int64_t q = 0; q < kTrialCells; ++q)
              values[static_cast<std::size_t>((e * kTrialChannels + c) * kRow + (f % kBlock) * kTrialCells + q)] += power;
    TrialLayout two = layout(TrialTest::Maxstat, {}, TrialFamily::Channels);
    two.conditions = 2;
    two.epoch_conditions = labels;
    TrialStatistics stats(two);
    for (std::int64_t first = 0; first < kTrialEpochs * kTrialChannels; first += kBlockSeries)
      add_batch(stats, values, first, std::min(kBlockSeries, kTrialEpochs * kTrialChannels - first), z);
    Batch out;
    stats.finish(out);
    const auto d = out.at(kContrastPac).values<float>();
    const auto p = out.at(kContrastPvalues).values<float>();
    const auto raw = out.at(kTrialPac).values<float>();  // [conditions][channels][cells]
    return std::tuple{std::vector<float>(d.begin(), d.end()), std::vector<float>(p.begin(), p.end()),
                      raw[0] - raw[static_cast<std::size_t>(kTrialChannels * kTrialCells)]};
  };
  const auto [d0, p0, raw0] = contrast(0.0);
  const auto [d1, p1, raw1] = contrast(0.8);
  EXPECT_NEAR(raw0 - raw1, 0.8, 1e-5) << "the raw means differ by the power";
  for (std::size_t i = 0; i < d0.size(); ++i) {
    EXPECT_EQ(d1[i], d0[i]) << "cell " << i;
    EXPECT_EQ(p1[i], p0[i]) << "cell " << i;
  }
}

// The trial_pvalues of `layout` over `pairings` ([epoch][group][partner in block][cells]) in one batch.
std::vector<float> whole_run(const TrialLayout& layout, const std::vector<double>& pairings) {
  TrialStatistics stats(layout);
  Batch batch;
  batch.first_series = 0;
  batch.series_count = layout.epochs * layout.groups;
  auto t = batch.emplace(kTrialPairingsTensor, {layout.block, layout.cells[0], layout.cells[1]}, DType::Float64)
               .values<double>();
  std::copy(pairings.begin(), pairings.end(), t.begin());
  stats.add(batch);
  Batch out;
  stats.finish(out);
  const auto p = out.at(kTrialPvalues).values<float>();
  return {p.begin(), p.end()};
}

// The permutations, the cells' moments, maxima and p-values run in parallel (chunks of about a
// million operations): a family large enough to be split gives the same bits on one thread as on
// four, for every tensor, the two conditions' contrast included.
TEST(TrialStatistics, AnyNumberOfThreadsGivesTheSameBits) {
  constexpr std::int64_t kE = 16, kG = 2, kB = 8, kP = 30, kA = 30, kN = 1000;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(1.0, 0.2);
  std::vector<double> pairings(static_cast<std::size_t>(kE * kG * kB * kP * kA));
  for (auto& v : pairings) v = noise(rng);
  std::vector<float> z(static_cast<std::size_t>(kE * kG * kP * kA));
  for (auto& v : z) v = static_cast<float>(noise(rng));
  TrialLayout two{RowLayout{}, kE, kG, kN, {kP, kA}, TrialTest::Maxstat, {}, 2, {}, 42, kB, TrialFamily::Channels,
                  false, {}};
  for (std::int64_t e = 0; e < kE; ++e) two.epoch_conditions.push_back(e % 2);
  const auto on_threads = [&](int threads) {
    std::map<std::string, std::vector<float>> tensors;
    oneapi::tbb::task_arena(threads).execute([&] {
      TrialStatistics stats(two);
      Batch batch;
      batch.first_series = 0;
      batch.series_count = kE * kG;
      auto t = batch.emplace(kTrialPairingsTensor, {kB, kP, kA}, DType::Float64).values<double>();
      std::copy(pairings.begin(), pairings.end(), t.begin());
      auto zt = batch.emplace(kEpochZ, {kP, kA}, DType::Float32).values<float>();
      std::copy(z.begin(), z.end(), zt.begin());
      stats.add(batch);
      Batch out;
      stats.finish(out);
      for (const char* name : {kTrialPac, kTrialZ, kTrialPvalues, kTrialRankZ, kContrastPac, kContrastZ, kContrastPvalues}) {
        const auto v = out.at(name).values<float>();
        tensors[name].assign(v.begin(), v.end());
      }
    });
    return tensors;
  };
  const auto one = on_threads(1), four = on_threads(4);
  for (const auto& [name, values] : one) {
    ASSERT_EQ(values.size(), four.at(name).size()) << name;
    EXPECT_EQ(std::memcmp(values.data(), four.at(name).data(), values.size() * sizeof(float)), 0) << name;
  }
  // Not two tensors left NaN by a test that never ran.
  EXPECT_FALSE(std::all_of(one.at(kTrialPvalues).begin(), one.at(kTrialPvalues).end(),
                           [](float p) { return std::isnan(p); }));
}

// Four epochs have 24 orderings: the test takes the 23 besides the observed one, each once (random
// draws repeat them, so that p could not reach 0.05), and p = #{orderings at least as large} / 24.
TEST(TrialStatistics, FewEpochsAreTestedAgainstEveryOrderingOnce) {
  constexpr std::int64_t kE = 4, kG = 2, kC = 6;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(1.0, 0.2);
  std::vector<double> v(static_cast<std::size_t>(kE * kG * kE * kC));  // [epoch][group][partner][cell]
  for (auto& x : v) x = noise(rng);
  const auto p = whole_run({RowLayout{}, kE, kG, 23, {2, 3}, TrialTest::Uncorrected, {}, 1, {}, 42, kE,
                            TrialFamily::Cells, true, {}},
                           v);
  for (std::int64_t g = 0; g < kG; ++g)
    for (std::int64_t q = 0; q < kC; ++q) {
      const auto mean = [&](const std::vector<std::int64_t>& perm) {
        double sum = 0;
        for (std::int64_t e = 0; e < kE; ++e)
          sum += v[static_cast<std::size_t>(((e * kG + g) * kE + perm[static_cast<std::size_t>(e)]) * kC + q)];
        return sum / kE;
      };
      std::vector<std::int64_t> perm{0, 1, 2, 3};
      const double observed = mean(perm);
      int at_least = 0;
      do at_least += mean(perm) >= observed;  // the observed ordering counts itself
      while (std::next_permutation(perm.begin(), perm.end()));
      EXPECT_FLOAT_EQ(p[static_cast<std::size_t>(g * kC + q)], static_cast<float>(at_least / 24.0))
          << "group " << g << ", cell " << q;
    }
  EXPECT_THROW(TrialStatistics({RowLayout{}, kE, kG, 199, {2, 3}, TrialTest::Uncorrected, {}, 1, {}, 42, kE,
                                TrialFamily::Cells, true, {}}),
               std::logic_error)
      << "n_perm + 1 must be the orderings";
}

// Five epochs in blocks of three ({0, 1, 2} and {3, 4}): 3! · 2! = 12 orderings, each block's
// ordering one digit of a mixed-radix count, the 11 besides the observed one taken once each.
TEST(TrialStatistics, EveryOrderingOfSeveralBlocksIsTakenOnce) {
  constexpr std::int64_t kE = 5, kG = 1, kB = 3, kC = 2;
  std::mt19937_64 rng(9);
  std::normal_distribution<double> noise(1.0, 0.2);
  std::vector<double> v(static_cast<std::size_t>(kE * kG * kB * kC));  // [epoch][group][partner in block][cell]
  for (auto& x : v) x = noise(rng);
  const auto p = whole_run({RowLayout{}, kE, kG, 11, {1, 2}, TrialTest::Uncorrected, {}, 1, {}, 42, kB,
                            TrialFamily::Cells, true, {}},
                           v);
  for (std::int64_t q = 0; q < kC; ++q) {
    const auto pairing = [&](std::int64_t e, std::int64_t f) {
      return v[static_cast<std::size_t>((e * kB + f % kB) * kC + q)];
    };
    std::vector<std::int64_t> first{0, 1, 2}, second{3, 4};
    const auto mean = [&] {
      double sum = 0;
      for (std::int64_t i = 0; i < 3; ++i) sum += pairing(i, first[static_cast<std::size_t>(i)]);
      for (std::int64_t i = 0; i < 2; ++i) sum += pairing(3 + i, second[static_cast<std::size_t>(i)]);
      return sum / kE;
    };
    const double observed = mean();
    int at_least = 0, orderings = 0;
    do {
      do {
        at_least += mean() >= observed;
        ++orderings;
      } while (std::next_permutation(second.begin(), second.end()));
    } while (std::next_permutation(first.begin(), first.end()));
    ASSERT_EQ(orderings, 12);
    EXPECT_FLOAT_EQ(p[static_cast<std::size_t>(q)], static_cast<float>(at_least / 12.0)) << "cell " << q;
  }
}

// Left-out epochs (overlapping ones) take no part: the means and permutations are of the others,
// and an enumerated test counts only their orderings.
TEST(TrialStatistics, LeftOutEpochsTakeNoPart) {
  const auto values = make_pairings();
  TrialLayout kept = layout(TrialTest::Uncorrected);
  kept.left_out_epochs = {1, 3, 5, 7};
  TrialStatistics stats(kept);
  const auto got = run(stats, values, kBlockSeries);
  // The mean of each channel's cell over epochs 0, 2, 4, 6 and 8, from the pairings directly.
  for (std::int64_t c = 0; c < kTrialChannels; ++c)
    for (std::int64_t q = 0; q < kTrialCells; ++q) {
      double sum = 0;
      for (std::int64_t e : {0, 2, 4, 6, 8})
        sum += values[static_cast<std::size_t>((e * kTrialChannels + c) * kRow + (e % kBlock) * kTrialCells + q)];
      EXPECT_NEAR(got[static_cast<std::size_t>(c * kTrialCells + q)], sum / 5, 1e-6) << "channel " << c << ", cell " << q;
    }
  // Blocks {0, 2} and {4, 6} of two kept epochs, {8} of one: 2 · 2 = 4 orderings, enumerated.
  kept.n_perm = 3;
  kept.enumerate = true;
  EXPECT_NO_THROW(TrialStatistics{kept});
  kept.n_perm = 23;
  EXPECT_THROW(TrialStatistics{kept}, std::logic_error) << "4 orderings, not 24";
}

// Every tensor of a run fed whole blocks `batch_series` series at a time; the contrast's z are the
// rows' own pairings (own_pairings) when the layout is make_pairings' one, else `z`.
std::map<std::string, std::vector<float>> every_output(const TrialLayout& layout, const std::vector<double>& pairings,
                                                       const std::vector<float>& z, std::int64_t batch_series) {
  TrialStatistics stats(layout);
  const std::int64_t cells = layout.cells[0] * layout.cells[1], row = layout.block * cells;
  for (std::int64_t first = 0; first < layout.epochs * layout.groups; first += batch_series) {
    Batch batch;
    batch.first_series = first;
    batch.series_count = std::min(batch_series, layout.epochs * layout.groups - first);
    auto t = batch.emplace(kTrialPairingsTensor, {layout.block, layout.cells[0], layout.cells[1]}, DType::Float64)
                 .values<double>();
    std::copy_n(pairings.begin() + first * row, batch.series_count * row, t.begin());
    auto zt = batch.emplace(kEpochZ, {layout.cells[0], layout.cells[1]}, DType::Float32).values<float>();
    std::copy_n(z.begin() + first * cells, batch.series_count * cells, zt.begin());
    stats.add(batch);
  }
  Batch out;
  stats.finish(out);
  std::map<std::string, std::vector<float>> tensors;
  for (const char* name : {kTrialPac, kTrialZ, kTrialPvalues, kTrialRankZ, kContrastPac, kContrastZ, kContrastPvalues})
    if (out.has(name)) {
      const auto v = out.at(name).values<float>();
      tensors[name].assign(v.begin(), v.end());
    }
  return tensors;
}

void expect_same_bits(const std::map<std::string, std::vector<float>>& got,
                      const std::map<std::string, std::vector<float>>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (const auto& [name, values] : want) {
    ASSERT_EQ(got.at(name).size(), values.size()) << what << ": " << name;
    EXPECT_EQ(std::memcmp(got.at(name).data(), values.data(), values.size() * sizeof(float)), 0) << what << ": " << name;
  }
}

// Beyond its state limit the test keeps each block's pairings instead of every permutation's sums
// and sums them again at the finish, a chunk of permutations at a time: every tensor is the same
// bits as with the sums kept, for every test, family, condition count, excluded and left-out
// epochs and enumerated orderings, with chunks of one permutation and of seven (which do not
// divide n + 1), in batches of one block and of the whole run.
TEST(TrialStatistics, KeepingThePairingsInsteadOfTheSumsChangesNoBit) {
  const auto values = make_pairings();
  std::vector<float> z;
  for (double v : own_pairings(values)) z.push_back(static_cast<float>(v));
  std::vector<std::pair<std::string, TrialLayout>> cases{
      {"max-T over every channel, a series excluded", layout(TrialTest::Maxstat, {4}, TrialFamily::Channels)},
      {"fdr per channel", layout(TrialTest::Fdr)},
      {"raw maximum", layout(TrialTest::MaxstatRaw)},
      {"left-out epochs", layout(TrialTest::Bonferroni)}};
  cases.back().second.left_out_epochs = {1, 3, 5, 7};
  TrialLayout two = layout(TrialTest::Maxstat, {}, TrialFamily::Channels);
  two.conditions = 2;
  two.epoch_conditions = {0, 1, 0, 1, 0, 1, 0, 1, 0};
  cases.emplace_back("two conditions and their contrast", two);
  for (auto [what, sums] : cases) {
    const auto want = every_output(sums, values, z, kBlockSeries);
    ASSERT_FALSE(keeps_pairings(sums)) << what;
    for (const double limit : {0.0, 7.0 * kTrialChannels * kTrialCells * sizeof(double)}) {
      TrialLayout bounded = sums;
      bounded.state_limit_bytes = limit;
      ASSERT_TRUE(keeps_pairings(bounded)) << what;
      expect_same_bits(every_output(bounded, values, z, kBlockSeries), want, what + fmt::format(", limit {}", limit));
      expect_same_bits(every_output(bounded, values, z, kTrialEpochs * kTrialChannels), want,
                       what + fmt::format(", limit {}, one batch", limit));
    }
  }
  // Four epochs, every ordering enumerated.
  constexpr std::int64_t kE = 4, kG = 2;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(1.0, 0.2);
  std::vector<double> v(static_cast<std::size_t>(kE * kG * kE * kTrialCells));
  for (auto& x : v) x = noise(rng);
  TrialLayout every{RowLayout{}, kE, kG, 23, {kTrialPha, kTrialAmp}, TrialTest::Maxstat, {}, 1, {}, 42, kE, TrialFamily::Cells,
                    true, {}};
  const std::vector<float> no_z(static_cast<std::size_t>(kE * kG * kTrialCells), 0.0f);
  const auto want = every_output(every, v, no_z, kE * kG);
  every.state_limit_bytes = 0;
  ASSERT_TRUE(keeps_pairings(every));
  expect_same_bits(every_output(every, v, no_z, kE * kG), want, "enumerated orderings");
}

// A checkpoint of the kept pairings resumes them exactly: the outputs are the bits of an
// uninterrupted run that kept the sums.
TEST(TrialStatistics, ACheckpointResumesTheKeptPairingsExactly) {
  const auto values = make_pairings();
  TrialStatistics whole(layout(TrialTest::Maxstat));
  const auto uninterrupted = run(whole, values, kBlockSeries);
  TrialLayout bounded = layout(TrialTest::Maxstat);
  bounded.state_limit_bytes = 0;
  const testing::ScratchDir dir("trial_pairings_checkpoint");
  json state;
  {
    TrialStatistics first(bounded);
    first.resume(dir.path(), nullptr, 0);
    add_batch(first, values, 0, kBlockSeries);
    state = first.checkpoint();
    add_batch(first, std::vector<double>(values.size(), 0.0), kBlockSeries, kBlockSeries);  // its record never lands
    first.checkpoint();
  }
  TrialStatistics resumed(bounded);
  resumed.resume(dir.path(), state, kBlockSeries);
  EXPECT_EQ(run(resumed, values, kBlockSeries, kBlockSeries), uninterrupted);
  TrialStatistics wrong(bounded);
  EXPECT_THROW(wrong.resume(dir.path(), state, 2 * kBlockSeries), InputError) << "the record holds one block, not two";
}

// The heavy scaling job's test (16 channels, 50 x 50 cells, 64 epochs in blocks of 8) would keep
// 3.2 GB of sums at 10 000 permutations and ten times that at 100 000: with the pairings kept
// instead, its memory is the pairings' 164 MB and one chunk, whatever the permutations.
TEST(TrialStatistics, MemoryDoesNotGrowWithThePermutationsBeyondTheLimit) {
  TrialLayout heavy{RowLayout{}, 64, 16, 10'000, {50, 50}, TrialTest::Maxstat, {}, 1, {}, 42, 8, TrialFamily::Channels,
                    false, {}};
  EXPECT_TRUE(keeps_pairings(heavy));
  EXPECT_DOUBLE_EQ(trial_state_bytes(heavy), 64.0 * 16 * 8 * 2500 * 8);
  const double peak = trial_peak_bytes(heavy);
  EXPECT_LE(peak, trial_state_bytes(heavy) + heavy.state_limit_bytes);
  heavy.n_perm = 100'000;
  EXPECT_DOUBLE_EQ(trial_peak_bytes(heavy), peak);
  heavy.n_perm = 200;  // few enough to keep the sums: 16 x 201 x 2500 doubles, 64 MB
  EXPECT_FALSE(keeps_pairings(heavy));
  EXPECT_DOUBLE_EQ(trial_peak_bytes(heavy), 16.0 * 201 * 2500 * 8);
}

TEST(TrialStatistics, UnknownTestIsRefusedNamingTheChoices) {
  try {
    make_element<stages::SurrogatesStage>({{"trials", "holm"}});
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_EQ(e.param(), "trials");
    EXPECT_NE(std::string(e.what()).find("must be one of auto, maxstat, maxstat_raw, fdr, bonferroni, uncorrected, none"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace pacflow::surrogates
