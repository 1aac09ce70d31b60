#include "stages/kernels/surrogates/family_test.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stages/kernels/statistics/multiple_comparisons.hpp"
#include "stages/kernels/statistics/rank_z.hpp"
#include "stages/kernels/surrogates/parallel_chunks.hpp"

namespace pacflow::surrogates {

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Calls f(values, first, last) for each chunk of arrangements [first, last) of [0, n], in order.
template <class F>
void for_each_chunk(const FamilyChunks& family, std::int64_t n, F&& f) {
  const std::int64_t step = std::max<std::int64_t>(1, family.rows_per_chunk);
  for (std::int64_t first = 0; first <= n; first += step) {
    const std::int64_t last = std::min(n + 1, first + step);
    f(family.rows(first, last), first, last);
  }
}

// Mean and population std per column, of the permutations (k in [1, n]) and of every arrangement
// (k in [0, n]: max-T standardises by these), each summed in k order, two passes, in double; and
// the observed row.
struct ColumnMoments {
  std::vector<double> mu, sd, all_mu, all_sd, observed;
};

ColumnMoments moments(const FamilyChunks& family, std::int64_t n, const std::stop_token& stop) {
  const auto columns = static_cast<std::size_t>(family.columns());
  ColumnMoments m{std::vector<double>(columns, 0.0), std::vector<double>(columns, 0.0),
                  std::vector<double>(columns, 0.0), std::vector<double>(columns, 0.0), std::vector<double>(columns)};
  const auto count = static_cast<double>(n), all = static_cast<double>(n + 1);
  for_each_chunk(family, n, [&](const FamilyValues& values, std::int64_t first, std::int64_t last) {
    if (first == 0)
      values.row(0, 0, family.columns(), [&](std::int64_t column, const double* v, std::int64_t len) {
        std::copy_n(v, len, m.observed.begin() + column);
      });
    in_parallel(family.columns(), last - first, stop, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t k = first; k < last; ++k)
        values.row(k, begin, end, [&](std::int64_t column, const double* v, std::int64_t len) {
          for (std::int64_t j = 0; j < len; ++j) {
            const auto i = static_cast<std::size_t>(column + j);
            if (k > 0) m.mu[i] += v[j];
            m.all_mu[i] += v[j];
          }
        });
    });
  });
  for (std::size_t i = 0; i < columns; ++i) {
    m.mu[i] /= count;
    m.all_mu[i] /= all;
  }
  for_each_chunk(family, n, [&](const FamilyValues& values, std::int64_t first, std::int64_t last) {
    in_parallel(family.columns(), last - first, stop, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t k = first; k < last; ++k)
        values.row(k, begin, end, [&](std::int64_t column, const double* v, std::int64_t len) {
          for (std::int64_t j = 0; j < len; ++j) {
            const auto i = static_cast<std::size_t>(column + j);
            if (k > 0) m.sd[i] += (v[j] - m.mu[i]) * (v[j] - m.mu[i]);
            m.all_sd[i] += (v[j] - m.all_mu[i]) * (v[j] - m.all_mu[i]);
          }
        });
    });
  });
  for (std::size_t i = 0; i < columns; ++i) {
    m.sd[i] = std::sqrt(m.sd[i] / count);
    m.all_sd[i] = std::sqrt(m.all_sd[i] / all);
  }
  return m;
}

double magnitude(double v, bool two_sided) { return two_sided ? std::abs(v) : v; }

// Each column's count of permutations at least as large as the observed value (in magnitude when
// two-sided), and of those above and tied with it (signed), for the mid-rank.
struct Counts {
  std::vector<std::int64_t> at_least, above, tied;
};

// Adds the permutations of one chunk (k in [first, last), k > 0) to c.
void count_chunk(const FamilyValues& values, std::int64_t first, std::int64_t last, const std::vector<double>& observed,
                 bool two_sided, Counts& c, const std::stop_token& stop) {
  in_parallel(values.columns(), last - first, stop, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t k = std::max<std::int64_t>(1, first); k < last; ++k)
      values.row(k, begin, end, [&](std::int64_t column, const double* v, std::int64_t len) {
        for (std::int64_t j = 0; j < len; ++j) {
          const auto i = static_cast<std::size_t>(column + j);
          c.at_least[i] += magnitude(v[j], two_sided) >= magnitude(observed[i], two_sided) ? 1 : 0;
          c.above[i] += v[j] > observed[i] ? 1 : 0;
          c.tied[i] += v[j] == observed[i] ? 1 : 0;
        }
      });
  });
}

}  // namespace

// Max-T standardises every arrangement, the observed one included, by the mean and std over all
// n + 1, so the observed maximum is exchangeable with the others and the family-wise error is the
// nominal one (standardising by the surrogates alone makes each surrogate's own z a little smaller
// than an outsider's, which the maximum over many cells turns into excess rejections). A column
// with no spread has z NaN; max-T leaves it out of the maxima and gives it p NaN.
FamilyTest test_family(const FamilyChunks& family, std::int64_t n, TrialTest test, bool two_sided, bool with_rank_z,
                       const std::stop_token& stop) {
  const std::int64_t columns = family.columns();
  const auto size = static_cast<std::size_t>(columns);
  ColumnMoments m = moments(family, n, stop);
  const auto standardised = [&](double v, std::size_t i) {
    return m.all_sd[i] > 0 ? (v - m.all_mu[i]) / m.all_sd[i] : kNan;
  };
  // The largest statistic of each permutation over the family: raw values, or standardised (max-T);
  // sorted, so each column's p is a search. The same pass counts each column's permutations.
  std::vector<double> largest(static_cast<std::size_t>(n), -std::numeric_limits<double>::infinity());
  Counts c{std::vector<std::int64_t>(size, 0), std::vector<std::int64_t>(size, 0), std::vector<std::int64_t>(size, 0)};
  const bool maximum = test == TrialTest::Maxstat || test == TrialTest::MaxstatRaw;
  for_each_chunk(family, n, [&](const FamilyValues& values, std::int64_t first, std::int64_t last) {
    const std::int64_t from = std::max<std::int64_t>(1, first);  // the permutations of the chunk
    if (maximum)
      in_parallel(last - from, columns, stop, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t k = from + begin; k < from + end; ++k) {
          double& most = largest[static_cast<std::size_t>(k - 1)];
          values.row(k, 0, columns, [&](std::int64_t column, const double* v, std::int64_t len) {
            for (std::int64_t j = 0; j < len; ++j) {
              const double s =
                  test == TrialTest::Maxstat ? standardised(v[j], static_cast<std::size_t>(column + j)) : v[j];
              if (!std::isnan(s)) most = std::max(most, magnitude(s, two_sided));
            }
          });
        }
      });
    count_chunk(values, first, last, m.observed, two_sided, c, stop);
  });
  std::sort(largest.begin(), largest.end());
  const auto share = [n](std::int64_t count) {
    return (1.0 + static_cast<double>(count)) / static_cast<double>(n + 1);
  };
  const auto share_of_largest_at_least = [&](double t) {  // #{k: largest_k >= t}; none for NaN
    if (std::isnan(t)) return share(0);
    return share(static_cast<std::int64_t>(largest.end() - std::lower_bound(largest.begin(), largest.end(), t)));
  };
  FamilyTest out{std::vector<float>(size), std::vector<float>(size),
                 with_rank_z ? std::vector<float>(size) : std::vector<float>{}, {}};
  std::vector<double> raw(size);
  for (std::size_t i = 0; i < size; ++i) {
    const double observed = m.observed[i];
    out.z[i] = static_cast<float>(m.sd[i] > 0 ? (observed - m.mu[i]) / m.sd[i] : kNan);
    raw[i] = share(c.at_least[i]);
    if (test == TrialTest::MaxstatRaw) out.p[i] = static_cast<float>(share_of_largest_at_least(magnitude(observed, two_sided)));
    if (test == TrialTest::Maxstat) {
      const double t = magnitude(standardised(observed, i), two_sided);
      out.p[i] = std::isnan(t) ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(share_of_largest_at_least(t));
    }
    if (with_rank_z)
      out.rank_z[i] = static_cast<float>(std::isnan(observed)
                                             ? kNan
                                             : statistics::rank_z(static_cast<double>(c.above[i]),
                                                                  static_cast<double>(c.tied[i]), n));
  }
  if (test == TrialTest::Fdr || test == TrialTest::Bonferroni)
    erpac::correct(raw, test == TrialTest::Fdr ? erpac::Correction::Fdr : erpac::Correction::Bonferroni);
  if (test != TrialTest::Maxstat && test != TrialTest::MaxstatRaw)
    std::transform(raw.begin(), raw.end(), out.p.begin(), [](double v) { return static_cast<float>(v); });
  out.observed = std::move(m.observed);
  return out;
}

}  // namespace pacflow::surrogates
