#include "pipelines/group/sign_flips.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/tools/roots.hpp>
#include <oneapi/tbb/parallel_for.h>

#include "stages/common/counter_rng.hpp"

namespace pacflow::group {

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// One flip: which subjects' maps change sign.
class Flips {
 public:
  Flips(std::int64_t subjects, const Settings& s) : key_(rng::key(s.seed, 0x67726f7570ULL)) {
    exact_ = subjects < 62 && (std::int64_t{1} << subjects) <= s.flips;
    count_ = exact_ ? std::int64_t{1} << subjects : s.flips + 1;  // drawn ones after the observed (k = 0)
  }
  bool exact() const { return exact_; }
  std::int64_t count() const { return count_; }
  // Whether flip k changes subject s's sign; k = 0 is the observed data.
  bool flipped(std::int64_t k, std::int64_t s) const {
    if (k == 0) return false;
    if (exact_) return ((k >> s) & 1) != 0;
    return ((rng::bits(key_, static_cast<std::uint64_t>(k) * 4096 + static_cast<std::uint64_t>(s / 64)) >> (s % 64)) &
            1) != 0;
  }

 private:
  std::uint64_t key_;
  bool exact_ = false;
  std::int64_t count_ = 0;
};

// t of one cell from the sum and sum of squares of its n values. Every subject's value the same
// (no spread, up to rounding) makes t infinite with the values' sign: every subject beyond its own
// null alike, as when strong coupling puts each subject's observed mean above all its permutations
// (trial_rank_z's largest value); NaN when they are all 0.
double t_of(double sum, double squares, double n) {
  const double mean = sum / n;
  const double variance = std::max(0.0, (squares - n * mean * mean) / (n - 1));
  if (variance > 1e-12 * squares / n) return mean / std::sqrt(variance / n);
  return mean > 0 ? std::numeric_limits<double>::infinity() : mean < 0 ? -std::numeric_limits<double>::infinity() : kNan;
}

// The clusters of one map's t: labels (-1 none) and each cluster's mass; positive clusters (t above
// `threshold`) and, two-sided, negative ones (below -threshold) apart.
struct MapClusters {
  std::vector<std::int32_t> label;
  std::vector<double> mass;
};

MapClusters clusters_of(const double* t, const Layout& layout, double threshold, bool two_sided) {
  MapClusters out;
  const std::int64_t rows = layout.rows, cols = layout.cols, times = layout.times;
  const auto n = static_cast<std::size_t>(layout.per_map());
  out.label.assign(n, -1);
  const auto side = [&](std::size_t i) { return t[i] > threshold ? 1 : two_sided && t[i] < -threshold ? -1 : 0; };
  std::vector<std::size_t> stack;
  for (std::size_t start = 0; start < n; ++start) {
    const int sign = side(start);
    if (sign == 0 || out.label[start] >= 0) continue;
    const auto id = static_cast<std::int32_t>(out.mass.size());
    double mass = 0;
    stack.assign(1, start);
    out.label[start] = id;
    while (!stack.empty()) {
      const std::size_t i = stack.back();
      stack.pop_back();
      mass += t[i];
      const auto cell = static_cast<std::int64_t>(i) / times, k = static_cast<std::int64_t>(i) % times;
      const std::int64_t r = cell / cols, c = cell % cols;
      const std::int64_t next[6][3] = {{r - 1, c, k}, {r + 1, c, k}, {r, c - 1, k},
                                       {r, c + 1, k}, {r, c, k - 1}, {r, c, k + 1}};
      for (const auto& rck : next) {
        if (rck[0] < 0 || rck[0] >= rows || rck[1] < 0 || rck[1] >= cols || rck[2] < 0 || rck[2] >= times) continue;
        const auto j = static_cast<std::size_t>((rck[0] * cols + rck[1]) * times + rck[2]);
        if (out.label[j] < 0 && side(j) == sign) {
          out.label[j] = id;
          stack.push_back(j);
        }
      }
    }
    out.mass.push_back(mass);
  }
  return out;
}

// The largest statistic of one flip: t (|t|) over every cell, and cluster mass (|mass|) over every map.
struct Maxima {
  double t = -std::numeric_limits<double>::infinity();
  double mass = 0;
};

Maxima maxima_of(const std::vector<double>& t, const Layout& layout, double threshold, bool two_sided) {
  Maxima m;
  for (double v : t)
    if (!std::isnan(v)) m.t = std::max(m.t, two_sided ? std::abs(v) : v);
  const std::int64_t per_map = layout.per_map();
  for (std::int64_t map = 0; map < layout.maps; ++map)
    for (double mass : clusters_of(t.data() + map * per_map, layout, threshold, two_sided).mass)
      m.mass = std::max(m.mass, two_sided ? std::abs(mass) : mass);
  return m;
}

// The share of the null's maxima (sorted ascending) at least `value`. The observed flip is among them,
// so with drawn flips this is (1 + count) / (flips + 1).
double p_of(const std::vector<double>& sorted, double value) {
  const auto at_least = static_cast<double>(sorted.end() - std::lower_bound(sorted.begin(), sorted.end(), value));
  return at_least / static_cast<double>(sorted.size());
}

}  // namespace

double t_quantile(double p, double df) {
  const boost::math::students_t dist(df);
  return boost::math::quantile(boost::math::complement(dist, p));
}

std::pair<double, double> dz_interval(double t, std::int64_t n, double confidence) {
  if (!std::isfinite(t) || n < 2) return {kNan, kNan};
  const double df = static_cast<double>(n - 1), tail = (1 - confidence) / 2;
  // The noncentrality whose distribution puts `target` of its mass below the observed t (the cdf
  // falls as the noncentrality grows), found between brackets widened until they hold it.
  const auto noncentrality = [&](double target) {
    const auto f = [&](double lambda) { return boost::math::cdf(boost::math::non_central_t(df, lambda), t) - target; };
    double width = 10 + std::abs(t);
    while (f(t - width) < 0 || f(t + width) > 0) width *= 2;
    std::uintmax_t iterations = 200;
    const auto bounds = boost::math::tools::toms748_solve(f, t - width, t + width, boost::math::tools::eps_tolerance<double>(40),
                                                          iterations);
    return (bounds.first + bounds.second) / 2;
  };
  const double root_n = std::sqrt(static_cast<double>(n));
  return {noncentrality(1 - tail) / root_n, noncentrality(tail) / root_n};
}

namespace {

// Each cell's d_z with its interval and max-T p-value, from the observed t (r.t): NaN where a subject
// has no value (counted as left out) or every subject's value is 0.
void cell_statistics(Result& r, const std::vector<bool>& kept, const std::vector<double>& max_t,
                     const Settings& settings) {
  const std::size_t cell_count = r.t.size();
  const bool two_sided = settings.tail == Tail::TwoSided;
  r.dz.assign(cell_count, kNan);
  r.dz_low.assign(cell_count, kNan);
  r.dz_high.assign(cell_count, kNan);
  r.p_maxt.assign(cell_count, kNan);
  r.p_cluster.assign(cell_count, kNan);
  r.cluster_of.assign(cell_count, -1);
  for (std::size_t c = 0; c < cell_count; ++c) {
    if (!kept[c]) {
      ++r.left_out_cells;
      continue;
    }
    if (std::isnan(r.t[c])) continue;  // every subject's value 0
    r.dz[c] = r.t[c] / std::sqrt(static_cast<double>(r.subjects));
    std::tie(r.dz_low[c], r.dz_high[c]) = dz_interval(r.t[c], r.subjects, settings.confidence);
    r.p_maxt[c] = p_of(max_t, two_sided ? std::abs(r.t[c]) : r.t[c]);
    r.p_cluster[c] = 1;
  }
}

// Each map's clusters of the observed t (r.t) above the threshold, with their mass and its p-value
// against the flips' largest masses; every cell of a cluster gets the cluster's p.
void observed_clusters(Result& r, const Layout& layout, const std::vector<double>& max_mass, bool two_sided) {
  const std::int64_t per_map = layout.per_map();
  for (std::int64_t map = 0; map < layout.maps; ++map) {
    const MapClusters found = clusters_of(r.t.data() + map * per_map, layout, r.threshold, two_sided);
    const auto first = static_cast<std::int32_t>(r.clusters.size());
    for (double mass : found.mass)
      r.clusters.push_back({map, 0, mass, p_of(max_mass, two_sided ? std::abs(mass) : mass)});
    for (std::int64_t i = 0; i < per_map; ++i) {
      const std::int32_t label = found.label[static_cast<std::size_t>(i)];
      if (label < 0) continue;
      const auto cell = static_cast<std::size_t>(map * per_map + i);
      Cluster& cluster = r.clusters[static_cast<std::size_t>(first + label)];
      ++cluster.cells;
      r.cluster_of[cell] = first + label;
      r.p_cluster[cell] = cluster.p;
    }
  }
}

}  // namespace

Result sign_flip_test(const std::vector<double>& values, std::int64_t subjects, const Layout& layout,
                      const Settings& settings) {
  if (subjects < 2) throw std::invalid_argument("a group test needs at least 2 subjects");
  const std::int64_t cells = layout.cells();
  if (static_cast<std::int64_t>(values.size()) != subjects * cells)
    throw std::invalid_argument("group values: not subjects x cells");
  const bool two_sided = settings.tail == Tail::TwoSided;
  const auto n = static_cast<double>(subjects);
  Result r;
  r.subjects = subjects;
  r.threshold = t_quantile(two_sided ? settings.cluster_p / 2 : settings.cluster_p, n - 1);
  const auto cell_count = static_cast<std::size_t>(cells);
  // Each cell's sum of squares (flips keep it) and whether every subject has a value.
  std::vector<double> squares(cell_count, 0.0);
  std::vector<bool> kept(cell_count, true);
  for (std::int64_t s = 0; s < subjects; ++s)
    for (std::size_t c = 0; c < cell_count; ++c) {
      const double v = values[static_cast<std::size_t>(s) * cell_count + c];
      if (std::isnan(v)) kept[c] = false;
      squares[c] += v * v;
    }
  const Flips flips(subjects, settings);
  const auto t_of_flip = [&](std::int64_t k) {
    std::vector<double> sums(cell_count, 0.0);
    for (std::int64_t s = 0; s < subjects; ++s) {
      const double sign = flips.flipped(k, s) ? -1.0 : 1.0;
      const double* row = values.data() + static_cast<std::size_t>(s) * cell_count;
      for (std::size_t c = 0; c < cell_count; ++c) sums[c] += sign * row[c];
    }
    std::vector<double> t(cell_count, kNan);
    for (std::size_t c = 0; c < cell_count; ++c)
      if (kept[c]) t[c] = t_of(sums[c], squares[c], n);
    return t;
  };
  // The null: every flip's largest t and cluster mass, computed in parallel, each flip on its own.
  std::vector<Maxima> null(static_cast<std::size_t>(flips.count()));
  oneapi::tbb::parallel_for(std::int64_t{0}, flips.count(), [&](std::int64_t k) {
    null[static_cast<std::size_t>(k)] = maxima_of(t_of_flip(k), layout, r.threshold, two_sided);
  });
  std::vector<double> max_t, max_mass;
  for (const Maxima& m : null) {
    max_t.push_back(m.t);
    max_mass.push_back(m.mass);
  }
  std::sort(max_t.begin(), max_t.end());
  std::sort(max_mass.begin(), max_mass.end());
  r.exact = flips.exact();
  r.flips = flips.count();
  // Two-sided, every flip's mirror image gives the same |t|: the observed data's is never alone.
  r.p_floor = (two_sided && flips.exact() ? 2.0 : 1.0) / static_cast<double>(flips.count());

  r.t = t_of_flip(0);
  cell_statistics(r, kept, max_t, settings);
  observed_clusters(r, layout, max_mass, two_sided);
  return r;
}

}  // namespace pacflow::group
