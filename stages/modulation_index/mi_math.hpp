#pragma once
// Per-sample and per-bin arithmetic of Tort's modulation index (spec §5), shared by CPU and CUDA.
#include <cmath>
#include <cstdint>
#include <numbers>

#include "stages/common/hd.hpp"

namespace pacflow::mi {

// Bin of a phase in (−π, π]: floor((φ + π) · bins / 2π), clamped to [0, bins − 1].
PACFLOW_HD inline int phase_bin(float phase, int bins) {
  const double pi = std::numbers::pi;
  const auto j = static_cast<int>(std::floor((static_cast<double>(phase) + pi) * bins / (2.0 * pi)));
  return j < 0 ? 0 : (j >= bins ? bins - 1 : j);
}

// MI = 1 + Σ p_j ln p_j / ln(bins), p_j = mean_j / Σ mean_k, over bins with count_j > 0.
PACFLOW_HD inline double tort_mi(const double* sums, const std::int64_t* counts, int bins) {
  double total = 0;
  for (int j = 0; j < bins; ++j)
    if (counts[j] > 0) total += sums[j] / static_cast<double>(counts[j]);
  if (!(total > 0)) return 0.0;  // no amplitude at all: a flat (uniform) distribution by convention
  double entropy_term = 0;
  for (int j = 0; j < bins; ++j) {
    if (counts[j] == 0) continue;
    const double p = sums[j] / static_cast<double>(counts[j]) / total;
    if (p > 0) entropy_term += p * std::log(p);
  }
  return 1.0 + entropy_term / std::log(static_cast<double>(bins));
}

}  // namespace pacflow::mi
