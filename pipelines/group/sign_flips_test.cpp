// The group test's arithmetic (sign_flips.hpp) against its definition: t and d_z, the exact null
// over every flip, max-T and cluster p-values, d_z's interval, and the threshold.
#include "pipelines/group/sign_flips.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <boost/math/distributions/non_central_t.hpp>

namespace pacflow::group {
namespace {

// `subjects` maps of rows x cols standard-normal values plus `effect` in the cells `planted` says.
std::vector<double> noise(std::int64_t subjects, const Layout& layout, unsigned seed, double effect = 0,
                          const std::vector<std::int64_t>& planted = {}) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<double> v(static_cast<std::size_t>(subjects * layout.cells()));
  for (auto& x : v) x = normal(rng);
  for (std::int64_t s = 0; s < subjects; ++s)
    for (std::int64_t c : planted) v[static_cast<std::size_t>(s * layout.cells() + c)] += effect;
  return v;
}

double t_direct(const std::vector<double>& v, std::int64_t subjects, std::int64_t cells, std::int64_t c,
                const std::vector<int>& signs) {
  double sum = 0, squares = 0;
  for (std::int64_t s = 0; s < subjects; ++s) {
    const double x = signs[static_cast<std::size_t>(s)] * v[static_cast<std::size_t>(s * cells + c)];
    sum += x;
    squares += x * x;
  }
  const double n = static_cast<double>(subjects), mean = sum / n;
  const double sd = std::sqrt((squares - n * mean * mean) / (n - 1));
  return mean / (sd / std::sqrt(n));
}

TEST(SignFlips, TAndDzAreTheOneSampleTAndMeanOverSd) {
  const Layout layout{2, 3, 4};
  const auto v = noise(7, layout, 1, 0.8, {5});
  const Result r = sign_flip_test(v, 7, layout, {});
  const std::vector<int> plus(7, 1);
  for (std::int64_t c = 0; c < layout.cells(); ++c) {
    EXPECT_NEAR(r.t[static_cast<std::size_t>(c)], t_direct(v, 7, layout.cells(), c, plus), 1e-12) << c;
    EXPECT_NEAR(r.dz[static_cast<std::size_t>(c)], r.t[static_cast<std::size_t>(c)] / std::sqrt(7.0), 1e-12);
  }
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.flips, 128);
  EXPECT_DOUBLE_EQ(r.p_floor, 1.0 / 128);
}

// Max-T with every flip enumerated: a cell's p is the share of the 2^S flips whose largest t over
// every cell reaches the cell's own, the observed data's among them (as MNE's exact test).
TEST(SignFlips, MaxTCountsEveryFlipsLargestT) {
  const Layout layout{1, 2, 3};
  const std::int64_t subjects = 6;
  const auto v = noise(subjects, layout, 2, 1.0, {0, 1});
  const Result r = sign_flip_test(v, subjects, layout, {});
  std::vector<double> maxima;
  for (std::int64_t k = 0; k < 64; ++k) {
    std::vector<int> signs(subjects);
    for (std::int64_t s = 0; s < subjects; ++s) signs[static_cast<std::size_t>(s)] = (k >> s) & 1 ? -1 : 1;
    double m = -1e300;
    for (std::int64_t c = 0; c < layout.cells(); ++c) m = std::max(m, t_direct(v, subjects, layout.cells(), c, signs));
    maxima.push_back(m);
  }
  for (std::int64_t c = 0; c < layout.cells(); ++c) {
    const double t = r.t[static_cast<std::size_t>(c)];
    const auto count = std::count_if(maxima.begin(), maxima.end(), [&](double m) { return m >= t - 1e-12; });
    EXPECT_NEAR(r.p_maxt[static_cast<std::size_t>(c)], static_cast<double>(count) / 64, 1e-12) << c;
  }
  // Two-sided: |t| against the largest |t|; the observed and its mirror image both reach it.
  const Result two = sign_flip_test(v, subjects, layout, {.tail = Tail::TwoSided});
  const double smallest = *std::min_element(two.p_maxt.begin(), two.p_maxt.end());
  EXPECT_GE(smallest, 2.0 / 64);
  EXPECT_DOUBLE_EQ(two.p_floor, 2.0 / 64);
}

// A block of coupled cells is one cluster of adjacent cells whose p is small; an isolated noisy
// cell in another map is its own cluster, adjacency never crossing maps.
TEST(SignFlips, AdjacentCellsAboveTheThresholdFormOneClusterPerMap) {
  const Layout layout{2, 5, 5};
  // Map 0: rows 1-2, columns 1-3 coupled (six cells); map 1: nothing.
  std::vector<std::int64_t> block;
  for (std::int64_t r = 1; r <= 2; ++r)
    for (std::int64_t c = 1; c <= 3; ++c) block.push_back(r * 5 + c);
  const auto v = noise(12, layout, 3, 2.0, block);
  const Result r = sign_flip_test(v, 12, layout, {.flips = 5000});
  EXPECT_TRUE(r.exact);  // 4096 flips
  ASSERT_GE(r.clusters.size(), 1u);
  const std::int32_t id = r.cluster_of[static_cast<std::size_t>(block.front())];
  ASSERT_GE(id, 0);
  for (std::int64_t c : block) EXPECT_EQ(r.cluster_of[static_cast<std::size_t>(c)], id) << c;
  const Cluster& found = r.clusters[static_cast<std::size_t>(id)];
  EXPECT_EQ(found.map, 0);
  EXPECT_GE(found.cells, 6);
  EXPECT_LT(found.p, 0.01);
  double mass = 0;
  for (std::size_t c = 0; c < r.t.size(); ++c)
    if (r.cluster_of[c] == id) mass += r.t[c];
  EXPECT_NEAR(found.mass, mass, 1e-9);
  for (std::int64_t c : block) EXPECT_DOUBLE_EQ(r.p_cluster[static_cast<std::size_t>(c)], found.p);
  for (std::size_t c = 0; c < r.t.size(); ++c) {
    if (r.cluster_of[c] < 0) {
      EXPECT_DOUBLE_EQ(r.p_cluster[c], 1.0);
    } else {
      EXPECT_GT(r.t[c], r.threshold);
    }
  }
  EXPECT_NEAR(r.threshold, 1.7958848187, 1e-8);  // t(11) at 0.95 (R: qt(0.95, 11))
}

// ERPAC's maps have a time axis after the bands: cells one time step apart touch, so an effect that
// lasts is one cluster across time; the same cells without the time axis are apart.
TEST(SignFlips, CellsTouchAcrossTimeWhenTheMapsHaveATimeAxis) {
  const Layout layout{1, 2, 2, 6};  // [pha][amp][times]: cell (r, c, k) at (r * 2 + c) * 6 + k
  std::vector<std::int64_t> lasting;
  for (std::int64_t k = 1; k <= 4; ++k) lasting.push_back((1 * 2 + 0) * 6 + k);  // band pair (1, 0), times 1-4
  const auto v = noise(10, layout, 5, 3.0, lasting);
  const Result r = sign_flip_test(v, 10, layout, {});
  const std::int32_t id = r.cluster_of[static_cast<std::size_t>(lasting.front())];
  ASSERT_GE(id, 0);
  for (std::int64_t c : lasting) EXPECT_EQ(r.cluster_of[static_cast<std::size_t>(c)], id) << c;
  EXPECT_GE(r.clusters[static_cast<std::size_t>(id)].cells, 4);
  EXPECT_LT(r.clusters[static_cast<std::size_t>(id)].p, 0.05);
  // The same values read as 24 separate maps of one cell each: no cell touches another.
  const Result apart = sign_flip_test(v, 10, {24, 1, 1, 1}, {});
  for (std::int64_t c : lasting) {
    const std::int32_t own = apart.cluster_of[static_cast<std::size_t>(c)];
    ASSERT_GE(own, 0);
    EXPECT_EQ(apart.clusters[static_cast<std::size_t>(own)].cells, 1);
  }
  // Without a time axis (times = 1) the layout is the comodulogram's, cell for cell.
  const Layout flat{2, 3, 4};
  const auto w = noise(8, flat, 6, 1.0, {1, 2, 5});
  const Result as_before = sign_flip_test(w, 8, flat, {}), with_times = sign_flip_test(w, 8, {2, 3, 4, 1}, {});
  EXPECT_EQ(as_before.cluster_of, with_times.cluster_of);
  EXPECT_EQ(as_before.p_cluster, with_times.p_cluster);
}

// Drawn flips when 2^S is more than asked: p = (1 + count) / (n + 1), the same for the same seed.
TEST(SignFlips, ManySubjectsDrawFlipsByTheSeed) {
  const Layout layout{1, 3, 3};
  const auto v = noise(20, layout, 4, 0.3, {4});
  const Result a = sign_flip_test(v, 20, layout, {.flips = 999, .seed = 7});
  const Result b = sign_flip_test(v, 20, layout, {.flips = 999, .seed = 7});
  const Result c = sign_flip_test(v, 20, layout, {.flips = 999, .seed = 8});
  EXPECT_FALSE(a.exact);
  EXPECT_EQ(a.flips, 1000);
  EXPECT_EQ(a.p_maxt, b.p_maxt);
  EXPECT_NE(a.p_maxt, c.p_maxt);
  for (double p : a.p_maxt) EXPECT_NEAR(p * 1000, std::round(p * 1000), 1e-9);
}

// d_z's interval inverts the noncentral t: the observed t lies at the 97.5 % and 2.5 % points of
// the distributions at its ends.
TEST(SignFlips, DzIntervalInvertsTheNoncentralT) {
  for (const auto& [t, n] : std::vector<std::pair<double, std::int64_t>>{{2.5, 10}, {0.3, 6}, {-1.2, 15}, {6.0, 4}}) {
    const auto [low, high] = dz_interval(t, n, 0.95);
    const double df = static_cast<double>(n - 1), root = std::sqrt(static_cast<double>(n));
    EXPECT_NEAR(boost::math::cdf(boost::math::non_central_t(df, low * root), t), 0.975, 1e-8) << t;
    EXPECT_NEAR(boost::math::cdf(boost::math::non_central_t(df, high * root), t), 0.025, 1e-8) << t;
    EXPECT_LT(low, t / root);
    EXPECT_GT(high, t / root);
  }
}

// Strong coupling puts every subject's observed mean above all its permutations: the same largest
// trial_rank_z in every subject, no spread. t is then infinite, and only the observed flip reaches it.
TEST(SignFlips, EverySubjectAtItsLargestValueIsTheStrongestEvidence) {
  const Layout layout{1, 2, 2};
  auto v = noise(6, layout, 6);
  for (std::int64_t s = 0; s < 6; ++s) v[static_cast<std::size_t>(s * 4 + 1)] = 2.58;  // cell 1
  const Result r = sign_flip_test(v, 6, layout, {});
  EXPECT_TRUE(std::isinf(r.t[1]) && r.t[1] > 0);
  EXPECT_DOUBLE_EQ(r.p_maxt[1], 1.0 / 64);
  EXPECT_TRUE(std::isinf(r.dz[1]));
  EXPECT_TRUE(std::isnan(r.dz_low[1]));
  const Result two = sign_flip_test(v, 6, layout, {.tail = Tail::TwoSided});
  EXPECT_DOUBLE_EQ(two.p_maxt[1], 2.0 / 64);
}

TEST(SignFlips, ACellWithoutEverySubjectIsLeftOutAndTooFewSubjectsAreRefused) {
  const Layout layout{1, 2, 2};
  auto v = noise(5, layout, 5);
  v[6] = std::nan("");  // subject 1, cell 2
  const Result r = sign_flip_test(v, 5, layout, {});
  EXPECT_EQ(r.left_out_cells, 1);
  EXPECT_TRUE(std::isnan(r.t[2]) && std::isnan(r.p_maxt[2]) && std::isnan(r.p_cluster[2]));
  EXPECT_FALSE(std::isnan(r.t[1]));
  EXPECT_THROW(sign_flip_test(std::vector<double>(4, 1.0), 1, layout, {}), std::invalid_argument);
  EXPECT_THROW(sign_flip_test(std::vector<double>(3, 1.0), 2, layout, {}), std::invalid_argument);
}

}  // namespace
}  // namespace pacflow::group
