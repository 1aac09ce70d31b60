#pragma once
// Per-element arithmetic of the analytic signal (spec §4), shared by the CPU and CUDA paths.
#include <cmath>
#include <cstdint>
#include <numbers>

#include "stages/common/hd.hpp"

namespace pacflow::hilbert {

// Weight of FFT bin k (of n) in the analytic signal: 1 for DC (and Nyquist when n is even),
// 2 for positive frequencies, 0 for negative ones (scipy.signal.hilbert).
PACFLOW_HD inline float analytic_weight(std::int64_t k, std::int64_t n) {
  if (k == 0) return 1.0f;
  if (n % 2 == 0) {
    if (k == n / 2) return 1.0f;
    return k < n / 2 ? 2.0f : 0.0f;
  }
  return k < (n + 1) / 2 ? 2.0f : 0.0f;
}

// Phase in (−π, π].
PACFLOW_HD inline float phase_of(float re, float im) {
  const float phi = std::atan2(im, re);
  return phi == -std::numbers::pi_v<float> ? std::numbers::pi_v<float> : phi;
}

PACFLOW_HD inline float amplitude_of(float re, float im) { return std::hypot(re, im); }

}  // namespace pacflow::hilbert
