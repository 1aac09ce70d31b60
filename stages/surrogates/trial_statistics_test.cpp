// The trial-level test (spec §6.4) against the definition computed here loop by loop: the mean over
// epochs of every group's measure, each surrogate's mean likewise, z and p of the observed mean,
// corrected across the group's cells by max statistic, Benjamini-Hochberg or Bonferroni. The sums
// do not depend on how the series are cut into batches, a checkpoint resumes them exactly, and the
// source's excluded series stay out of the means.
#include "stages/surrogates/trial_statistics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "engine/errors.hpp"
#include "stages/surrogates/surrogate_math.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow::surrogates {
namespace {

constexpr std::int64_t kEpochs = 5, kChannels = 3, kPerm = 39, kPha = 2, kAmp = 3, kCells = kPha * kAmp;
constexpr std::int64_t kRow = (kPerm + 1) * kCells;

// values[series][alignment][cell]: channel 0 coupled in cell 4 (observed above every surrogate in
// most epochs), the rest noise.
std::vector<double> make_values() {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(1.0, 0.2);
  std::vector<double> v(static_cast<std::size_t>(kEpochs * kChannels * kRow));
  for (auto& x : v) x = noise(rng);
  for (std::int64_t e = 0; e < kEpochs; ++e) v[static_cast<std::size_t>((e * kChannels + 0) * kRow + 4)] += 0.5;
  return v;
}

TrialLayout layout(TrialTest test, std::vector<std::int64_t> excluded = {}) {
  return {RowLayout{}, kEpochs, kChannels, kPerm, {kPha, kAmp}, test, std::move(excluded), 1, {}, 42};
}

// Runs the statistics over the series in batches of `batch` series; returns trial_pac, trial_z,
// trial_pvalues one after the other.
std::vector<float> run(TrialStatistics& stats, const std::vector<double>& values, std::int64_t batch_series,
                       std::int64_t from = 0) {
  for (std::int64_t first = from; first < kEpochs * kChannels; first += batch_series) {
    Batch batch;
    batch.first_series = first;
    batch.series_count = std::min(batch_series, kEpochs * kChannels - first);
    auto t = batch.emplace(kTrialValuesTensor, {kPerm + 1, kPha, kAmp}, DType::Float64).values<double>();
    std::copy_n(values.begin() + first * kRow, batch.series_count * kRow, t.begin());
    stats.add(batch);
  }
  Batch out;
  stats.finish(out);
  std::vector<float> all;
  for (const char* name : {kTrialPac, kTrialZ, kTrialPvalues}) {
    const auto v = out.at(name).values<float>();
    EXPECT_EQ(static_cast<std::int64_t>(v.size()), kChannels * kCells) << name;
    all.insert(all.end(), v.begin(), v.end());
  }
  return all;
}

struct Reference {
  std::vector<double> mean, z, p, pmax, pmax_t;  // [channel][cell]
};

// The definition, directly: means over the included epochs, population std of the surrogate means.
Reference reference(const std::vector<double>& v, const std::vector<std::int64_t>& excluded = {}) {
  Reference r;
  for (std::int64_t c = 0; c < kChannels; ++c) {
    std::vector<std::vector<double>> m(kPerm + 1, std::vector<double>(kCells, 0.0));
    std::int64_t n = 0;
    for (std::int64_t e = 0; e < kEpochs; ++e) {
      const std::int64_t s = e * kChannels + c;
      if (std::find(excluded.begin(), excluded.end(), s) != excluded.end()) continue;
      ++n;
      for (std::int64_t k = 0; k <= kPerm; ++k)
        for (std::int64_t q = 0; q < kCells; ++q) m[k][q] += v[static_cast<std::size_t>(s * kRow + k * kCells + q)];
    }
    for (auto& row : m)
      for (auto& x : row) x /= static_cast<double>(n);
    std::vector<double> max_k(kPerm + 1, -1e300), max_t(kPerm + 1, -1e300), mu(kCells, 0.0), sd(kCells, 0.0);
    for (std::int64_t k = 1; k <= kPerm; ++k)
      for (std::int64_t q = 0; q < kCells; ++q) {
        max_k[k] = std::max(max_k[k], m[k][q]);
        mu[q] += m[k][q] / kPerm;
      }
    for (std::int64_t k = 1; k <= kPerm; ++k)
      for (std::int64_t q = 0; q < kCells; ++q) sd[q] += (m[k][q] - mu[q]) * (m[k][q] - mu[q]) / kPerm;
    for (std::int64_t k = 1; k <= kPerm; ++k)
      for (std::int64_t q = 0; q < kCells; ++q) max_t[k] = std::max(max_t[k], (m[k][q] - mu[q]) / std::sqrt(sd[q]));
    for (std::int64_t q = 0; q < kCells; ++q) {
      double sum = 0, sq = 0;
      std::int64_t above = 0, above_max = 0, above_t = 0;
      const double z0 = (m[0][q] - mu[q]) / std::sqrt(sd[q]);
      for (std::int64_t k = 1; k <= kPerm; ++k) {
        sum += m[k][q];
        above += m[k][q] >= m[0][q];
        above_max += max_k[k] >= m[0][q];
        above_t += max_t[k] >= z0;
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
  const auto values = make_values();
  TrialStatistics stats(layout(TrialTest::Maxstat));
  const auto got = run(stats, values, 4);
  const Reference want = reference(values);
  const std::size_t n = kChannels * kCells;
  expect_near_all(got, 0, want.mean, 1e-6, "trial_pac");
  expect_near_all(got, n, want.z, 1e-5, "trial_z");
  expect_near_all(got, 2 * n, want.pmax_t, 1e-7, "trial_pvalues");
  EXPECT_FLOAT_EQ(got[2 * n + 4], 1.0f / (kPerm + 1)) << "the coupled cell beats every surrogate's largest z";
}

TEST(TrialStatistics, RawMaxStatisticIsTensorPacsMaxOverTheRawMeans) {
  const auto values = make_values();
  TrialStatistics stats(layout(TrialTest::MaxstatRaw));
  expect_near_all(run(stats, values, 4), 2 * kChannels * kCells, reference(values).pmax, 1e-7, "trial_pvalues");
}

// A cell whose measure sits higher under the null (a wide band) takes the raw maximum of every
// surrogate, so a well-coupled cell below that level is never significant by the raw maximum;
// max-T compares each cell with its own surrogates.
TEST(TrialStatistics, MaxTFindsACouplingThatACellWithAHigherNullLevelHidesFromTheRawMaximum) {
  auto values = make_values();
  for (std::int64_t s = 0; s < kEpochs * kChannels; ++s)
    for (std::int64_t k = 0; k <= kPerm; ++k) values[static_cast<std::size_t>(s * kRow + k * kCells + 0)] += 2.0;
  const std::size_t coupled = 2 * kChannels * kCells + 4;  // channel 0, cell 4
  TrialStatistics raw(layout(TrialTest::MaxstatRaw));
  EXPECT_EQ(run(raw, values, 5)[coupled], 1.0f);
  TrialStatistics max_t(layout(TrialTest::Maxstat));
  EXPECT_LT(run(max_t, values, 5)[coupled], 0.05f);
}

TEST(TrialStatistics, UncorrectedFdrAndBonferroniCorrectTheRawPOfEachChannel) {
  const auto values = make_values();
  const Reference want = reference(values);
  const std::size_t n = kChannels * kCells;
  TrialStatistics raw(layout(TrialTest::Uncorrected));
  expect_near_all(run(raw, values, 15), 2 * n, want.p, 1e-7, "uncorrected");
  TrialStatistics bonferroni(layout(TrialTest::Bonferroni));
  std::vector<double> bonf;
  for (double p : want.p) bonf.push_back(std::min(1.0, p * kCells));
  expect_near_all(run(bonferroni, values, 15), 2 * n, bonf, 1e-6, "bonferroni");
  // Benjamini-Hochberg per channel: p_(i) m / i, running minimum from the largest rank down.
  std::vector<double> fdr(want.p.size());
  for (std::int64_t c = 0; c < kChannels; ++c) {
    std::vector<std::int64_t> order(kCells);
    std::iota(order.begin(), order.end(), 0);
    const auto p = [&](std::int64_t q) { return want.p[static_cast<std::size_t>(c * kCells + q)]; };
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return p(a) < p(b); });
    double running = 1.0;
    for (std::int64_t i = kCells; i-- > 0;) {
      running = std::min(running, p(order[i]) * kCells / static_cast<double>(i + 1));
      fdr[static_cast<std::size_t>(c * kCells + order[i])] = running;
    }
  }
  TrialStatistics bh(layout(TrialTest::Fdr));
  expect_near_all(run(bh, values, 15), 2 * n, fdr, 1e-6, "fdr");
}

TEST(TrialStatistics, BatchSizeDoesNotChangeABit) {
  const auto values = make_values();
  TrialStatistics whole(layout(TrialTest::Maxstat));
  const auto reference_bits = run(whole, values, kEpochs * kChannels);
  for (std::int64_t batch : {1, 2, 3, 7}) {
    TrialStatistics stats(layout(TrialTest::Maxstat));
    EXPECT_EQ(run(stats, values, batch), reference_bits) << "batches of " << batch;
  }
}

TEST(TrialStatistics, ExcludedSeriesStayOutOfTheMeans) {
  auto values = make_values();
  const std::vector<std::int64_t> excluded{1, 4};  // channel 1 in epochs 0 and 1: NaN rows from the engine
  for (auto s : excluded) std::fill_n(values.begin() + s * kRow, kRow, std::nan(""));
  TrialStatistics stats(layout(TrialTest::Maxstat, excluded));
  const auto got = run(stats, values, 3);
  const Reference want = reference(values, excluded);
  expect_near_all(got, 0, want.mean, 1e-6, "trial_pac");
  for (std::int64_t q = 0; q < kCells; ++q) EXPECT_TRUE(std::isfinite(got[static_cast<std::size_t>(kCells + q)]));
}

TEST(TrialStatistics, ACheckpointResumesTheSumsExactly) {
  const auto values = make_values();
  TrialStatistics whole(layout(TrialTest::Fdr));
  const auto uninterrupted = run(whole, values, 3);
  const testing::ScratchDir dir("trial_checkpoint");
  json state;
  {
    TrialStatistics first(layout(TrialTest::Fdr));
    first.resume(dir.path(), nullptr, 0);
    for (std::int64_t s = 0; s < 9; s += 3) {
      Batch batch;
      batch.first_series = s;
      batch.series_count = 3;
      auto t = batch.emplace(kTrialValuesTensor, {kPerm + 1, kPha, kAmp}, DType::Float64).values<double>();
      std::copy_n(values.begin() + s * kRow, 3 * kRow, t.begin());
      first.add(batch);
      state = first.checkpoint();  // the record after each batch
    }
    // A batch added and checkpointed but whose record never landed (a kill): the state names the
    // file of the last record, which the next write did not touch.
    Batch lost;
    lost.first_series = 9;
    lost.series_count = 3;
    lost.emplace(kTrialValuesTensor, {kPerm + 1, kPha, kAmp}, DType::Float64);
    first.add(lost);
    first.checkpoint();
  }
  TrialStatistics resumed(layout(TrialTest::Fdr));
  resumed.resume(dir.path(), state, 9);
  EXPECT_EQ(run(resumed, values, 3, 9), uninterrupted);

  TrialStatistics wrong(layout(TrialTest::Fdr));
  EXPECT_THROW(wrong.resume(dir.path(), state, 6), InputError) << "the record holds 9 series, not 6";
}

// Two conditions (epochs 0, 2, 4 and 1, 3): each condition's mean is tested on its own, and their
// difference against permutations of the labels, here with a difference planted in channel 1, cell 2.
TEST(TrialStatistics, TwoConditionsAreTestedEachAndTheirDifferenceByPermutedLabels) {
  auto values = make_values();
  const std::vector<std::int64_t> labels{0, 1, 0, 1, 0};
  for (std::int64_t e : {0, 2, 4}) values[static_cast<std::size_t>((e * kChannels + 1) * kRow + 2)] += 1.0;
  TrialLayout two = layout(TrialTest::Uncorrected);
  two.conditions = 2;
  two.epoch_conditions = labels;
  TrialStatistics stats(two);
  for (std::int64_t first = 0; first < kEpochs * kChannels; first += 4) {
    Batch batch;
    batch.first_series = first;
    batch.series_count = std::min<std::int64_t>(4, kEpochs * kChannels - first);
    auto t = batch.emplace(kTrialValuesTensor, {kPerm + 1, kPha, kAmp}, DType::Float64).values<double>();
    std::copy_n(values.begin() + first * kRow, batch.series_count * kRow, t.begin());
    stats.add(batch);
  }
  Batch out;
  stats.finish(out);
  ASSERT_EQ(out.at(kTrialPac).size(), static_cast<std::size_t>(2 * kChannels * kCells)) << "[conditions][channels]…";
  // Condition 1's mean of channel 2, cell 5, and the contrast of every cell, from the definition.
  const auto observed = [&](std::int64_t e, std::int64_t c, std::int64_t q) {
    return values[static_cast<std::size_t>((e * kChannels + c) * kRow + q)];
  };
  EXPECT_NEAR(out.at(kTrialPac).values<float>()[static_cast<std::size_t>((kChannels + 2) * kCells + 5)],
              (observed(1, 2, 5) + observed(3, 2, 5)) / 2, 1e-6);
  const auto difference = [&](std::int64_t c, std::int64_t q, const std::vector<std::int64_t>& of) {
    double sum[2] = {0, 0};
    std::int64_t n[2] = {0, 0};
    for (std::int64_t e = 0; e < kEpochs; ++e) {
      sum[of[static_cast<std::size_t>(e)]] += observed(e, c, q);
      ++n[of[static_cast<std::size_t>(e)]];
    }
    return sum[0] / static_cast<double>(n[0]) - sum[1] / static_cast<double>(n[1]);
  };
  std::vector<std::vector<std::int64_t>> permuted;
  for (std::int64_t k = 0; k < kPerm; ++k) {
    std::vector<std::int64_t> perm(kEpochs), relabelled(kEpochs);
    condition_permutation(42, static_cast<std::uint64_t>(k), kEpochs, perm.data());
    for (std::int64_t e = 0; e < kEpochs; ++e)
      relabelled[static_cast<std::size_t>(e)] = labels[static_cast<std::size_t>(perm[static_cast<std::size_t>(e)])];
    permuted.push_back(relabelled);
  }
  const auto d = out.at(kContrastPac).values<float>();
  const auto p = out.at(kContrastPvalues).values<float>();
  for (std::int64_t c = 0; c < kChannels; ++c)
    for (std::int64_t q = 0; q < kCells; ++q) {
      const double want = difference(c, q, labels);
      std::int64_t above = 0;
      for (const auto& relabelled : permuted) above += std::abs(difference(c, q, relabelled)) >= std::abs(want);
      const auto i = static_cast<std::size_t>(c * kCells + q);
      EXPECT_NEAR(d[i], want, 1e-6) << "channel " << c << " cell " << q;
      EXPECT_FLOAT_EQ(p[i], static_cast<float>((1.0 + static_cast<double>(above)) / (kPerm + 1)))
          << "channel " << c << " cell " << q;
    }
  // Five epochs have 10 labellings with three in condition 0: the planted difference is the largest
  // of them, so only labellings equal to the observed one (about 1 in 10) reach it.
  EXPECT_LT(p[static_cast<std::size_t>(kCells + 2)], 0.25f);
}

TEST(TrialStatistics, UnknownTestIsRefusedNamingTheChoices) {
  try {
    parse_trial_test("holm");
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_NE(std::string(e.what()).find("maxstat, maxstat_raw, fdr, bonferroni"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pacflow::surrogates
