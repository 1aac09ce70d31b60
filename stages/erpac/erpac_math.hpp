#pragma once
// Event-related PAC (Voytek et al. 2013; TensorPAC's erpac, after circ_corrcc of Berens' CircStat):
// at one time point, the circular-linear correlation across epochs between the phase φ and the
// amplitude A, from centred second moments. Shared by the CPU stage and CUDA kernels.
#include <cmath>
#include <cstdint>

#include "stages/common/hd.hpp"

namespace pacflow::erpac {

// Sums over epochs of products of the centred variables x = A, s = sin φ, c = cos φ.
struct Moments {
  double xx = 0, ss = 0, cc = 0;
  double xs = 0, xc = 0, sc = 0;
};

// ρ = sqrt((r_xc² + r_xs² − 2 r_xc r_xs r_cs) / (1 − r_cs²)) with the Pearson correlations r of the
// pairs (Zar, Biostatistical Analysis, eq. 27.47). NaN where a variable does not vary across epochs
// or sin φ and cos φ are collinear (r_cs² = 1, e.g. two epochs).
PACFLOW_HD inline double circular_linear_correlation(const Moments& m) {
  if (!(m.xx > 0 && m.ss > 0 && m.cc > 0)) return NAN;
  const double rxs = m.xs / std::sqrt(m.xx * m.ss);
  const double rxc = m.xc / std::sqrt(m.xx * m.cc);
  const double rcs = m.sc / std::sqrt(m.ss * m.cc);
  const double denominator = 1.0 - rcs * rcs;
  if (!(denominator > 0)) return NAN;
  const double numerator = rxc * rxc + rxs * rxs - 2.0 * rxc * rxs * rcs;
  return std::sqrt((numerator > 0 ? numerator : 0.0) / denominator);
}

// p = 1 − χ²₂ CDF(n ρ²) = exp(−n ρ² / 2) for n epochs (TensorPAC's erpac p-value).
PACFLOW_HD inline double correlation_pvalue(double rho, std::int64_t epochs) {
  return std::exp(-0.5 * static_cast<double>(epochs) * rho * rho);
}

}  // namespace pacflow::erpac
