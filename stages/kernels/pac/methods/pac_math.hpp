#pragma once
// Per-cell arithmetic of the PAC measures besides Tort's MI (docs/methods.md), from sufficient
// statistics summed over the samples of one series: complex sums, per-bin means, second moments.
// The CPU stages compute the sums on the host and call these; a CUDA kernel computes the same sums
// on the device and calls the same functions, so both give the same numbers.
#include <cmath>
#include <cstdint>
#include <numbers>

#include "stages/common/hd.hpp"

namespace pacflow::mi {

// |Σ_t w(t)| / T for a complex sum (re, im): the mean vector length (Canolty et al. 2006, w = A e^{iφ})
// and the phase-locking value (Penny et al. 2008, w = e^{i(φ − ψ)}).
PACFLOW_HD inline double vector_length(double re, double im, std::int64_t length) {
  return std::sqrt(re * re + im * im) / static_cast<double>(length);
}

// Normalised direct PAC (Özkurt & Schnitzler 2012, TensorPAC's norm_direct_pac): with the amplitude
// z-scored, z = (A − mean) / std (std with ddof 1), S = Σ z e^{iφ} = (Σ A e^{iφ} − mean Σ e^{iφ}) / std,
// and ndPAC = |S| / T, set to 0 where |S|² <= threshold (= 2 T erfinv(1 − p)², see ndpac_threshold).
// A constant amplitude (std = 0) has no coupling: 0.
PACFLOW_HD inline double normalised_direct_pac(double sum_ae_re, double sum_ae_im, double sum_e_re, double sum_e_im,
                                               double mean, double std, std::int64_t length, double threshold) {
  if (!(std > 0)) return 0.0;
  const double re = (sum_ae_re - mean * sum_e_re) / std;
  const double im = (sum_ae_im - mean * sum_e_im) / std;
  const double squared = re * re + im * im;
  return squared <= threshold ? 0.0 : std::sqrt(squared) / static_cast<double>(length);
}

// Heights ratio (Lakatos et al. 2005): (max_j p_j − min_j p_j) / max_j p_j over the occupied bins,
// p_j the normalised mean amplitude of bin j (the normalisation cancels). Empty bins are left out,
// as in Tort's MI; an all-zero amplitude gives 0. bins <= 1024. Count: any integer type.
template <class Count>
PACFLOW_HD inline double heights_ratio(const double* sums, const Count* counts, int bins, std::int64_t stride = 1) {
  double high = 0, low = 0;
  bool any = false;
  for (int j = 0; j < bins; ++j) {
    if (counts[j] <= 0) continue;
    const double mean = sums[j * stride] / static_cast<double>(counts[j]);
    high = any && high > mean ? high : mean;
    low = any && low < mean ? low : mean;
    any = true;
  }
  return any && high > 0 ? (high - low) / high : 0.0;
}

// Amplitude distribution over the phase bins: p_j = mean_j / Σ_k mean_k (0 for an empty bin; all 0
// for an all-zero amplitude), as in Tort et al. 2010 Fig. 1 and TensorPAC's Pac.pp.
PACFLOW_HD inline void amplitude_distribution(const double* sums, const std::int64_t* counts, int bins, double* p) {
  double total = 0;
  for (int j = 0; j < bins; ++j) {
    p[j] = counts[j] > 0 ? sums[j] / static_cast<double>(counts[j]) : 0.0;
    total += p[j];
  }
  for (int j = 0; j < bins; ++j) p[j] = total > 0 ? p[j] / total : 0.0;
}

// Preferred phase: the centre of the bin with the largest mean amplitude (the first on ties),
// −π + (j + ½)·2π / bins, as TensorPAC's Pac.pp. NaN for an all-zero amplitude.
PACFLOW_HD inline double preferred_phase(const double* sums, const std::int64_t* counts, int bins) {
  int best = -1;
  double best_mean = 0;
  for (int j = 0; j < bins; ++j) {
    if (counts[j] <= 0) continue;
    const double mean = sums[j] / static_cast<double>(counts[j]);
    if (mean > best_mean) {
      best = j;
      best_mean = mean;
    }
  }
  const double pi = std::numbers::pi;
  return best < 0 ? NAN : -pi + (best + 0.5) * 2.0 * pi / bins;
}

// Second moments Σ_t of the copula-normalised variables of Gaussian-copula PAC (Ince et al. 2017):
// x1 = copnorm(sin φ), x2 = copnorm(cos φ), y = copnorm(A). Not demeaned (TensorPAC's default; a
// copula-normalised series has mean 0 up to rounding).
struct GaussianMoments {
  double x1x1 = 0, x2x2 = 0, x1x2 = 0;  // of the phase (shift-invariant)
  double yy = 0;                        // of the amplitude (shift-invariant)
  double x1y = 0, x2y = 0;              // cross moments
};

// Mutual information in bits between the bivariate x and y under the Gaussian model:
// I = ½ log2(det C_xx · C_yy / det C) = −½ log2(1 − c_xyᵀ C_xx⁻¹ c_xy / C_yy); the 1/(T − 1)
// normalisation of the covariances cancels. `bias_bits` is added: 0, or the (negative) bias
// correction of the Gaussian entropy estimates that make_method computes from T. Degenerate
// moments give 0, and y exactly linear in x infinity.
PACFLOW_HD inline double gaussian_copula_mi(const GaussianMoments& m, double bias_bits) {
  const double det_xx = m.x1x1 * m.x2x2 - m.x1x2 * m.x1x2;
  if (!(det_xx > 0) || !(m.yy > 0)) return 0.0;
  const double explained =
      (m.x2x2 * m.x1y * m.x1y - 2.0 * m.x1x2 * m.x1y * m.x2y + m.x1x1 * m.x2y * m.x2y) / (det_xx * m.yy);
  if (!(explained < 1)) return INFINITY;  // y is a linear function of x
  return -0.5 * std::log1p(-explained) / std::numbers::ln2 + bias_bits;
}

}  // namespace pacflow::mi
