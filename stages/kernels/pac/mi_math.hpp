#pragma once
// Per-sample and per-bin arithmetic of Tort's modulation index (spec §5), shared by the CPU stages
// (on plain doubles and on 8-lane vectors) and the CUDA kernels, so they agree bit for bit.
#include <cmath>
#include <cstdint>
#include <numbers>

#include "stages/common/hd.hpp"
#include "stages/common/positive_log.hpp"

namespace pacflow::mi {

// Bin of a phase in (−π, π]: floor((φ + π) · bins / 2π), clamped to [0, bins − 1]. For x >= 0
// truncation is floor, and any x < 0 (float(−π) lies just below −π) clamps to 0 either way, so no
// libm floor call is needed; a NaN phase lands in bin 0.
PACFLOW_HD inline int phase_bin(float phase, int bins) {
  const double pi = std::numbers::pi;
  const double x = (static_cast<double>(phase) + pi) * bins / (2.0 * pi);
  const int j = x >= 0 ? static_cast<int>(x < bins ? x : bins) : 0;
  return j >= bins ? bins - 1 : j;
}

// 1 / count_j, or 0 for an empty bin, which then has mean 0 and p_j = 0 (left out).
PACFLOW_HD inline double inverse_count(std::int64_t count) { return count > 0 ? 1.0 / static_cast<double>(count) : 0.0; }

// 1 / ln(bins), with the same logarithm as the entropy term.
PACFLOW_HD inline double inverse_log_bins(int bins) {
  return 1.0 / math::positive_log<double, std::int64_t>(static_cast<double>(bins));
}

// MI = 1 + Σ p_j ln p_j / ln(bins) with p_j = mean_j / Σ_k mean_k and 0 · ln 0 = 0, from the mean
// amplitude per bin (sum_j · inverse_count(count_j)), bin j's at means[j · stride]. Real is double
// or a vector of doubles (one cell per lane, Int its int64 counterpart). An all-zero amplitude
// gives 0 (a flat distribution).
template <class Real, class Int>
PACFLOW_HD_INLINE Real tort_mi_from_means(const Real* means, int bins, double inv_log_bins, std::int64_t stride = 1) {
  const Real zero{};
  const Real one = zero + 1.0;
  // From zero rather than means[0]: the same sums (0 + x = x), and GCC 12 does not crash on it
  // (an internal compiler error with AVX-512 vectors when bins is not known to be >= 2).
  Real total = zero;
  for (int j = 0; j < bins; ++j) total += means[j * stride];
  const auto any = total > 0.0;
  const Real inv_total = one / (any ? total : one);
  Real entropy = zero;
  for (int j = 0; j < bins; ++j) {
    const Real p = means[j * stride] * inv_total;
    const auto positive = p > 0.0;
    entropy += positive ? p * math::positive_log<Real, Int>(positive ? p : one) : zero;
  }
  return any ? 1.0 + entropy * inv_log_bins : zero;
}

// Scalar form from per-bin amplitude sums and sample counts (bins <= 1024).
PACFLOW_HD inline double tort_mi(const double* sums, const std::int64_t* counts, int bins) {
  double means[1024];
  for (int j = 0; j < bins; ++j) means[j] = sums[j] * inverse_count(counts[j]);
  return tort_mi_from_means<double, std::int64_t>(means, bins, inverse_log_bins(bins));
}

}  // namespace pacflow::mi
