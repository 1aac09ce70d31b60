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

// atan2(y, x) in (−π, π] for float or a vector of floats (one series sample per lane), written out
// so the CPU (scalar and SIMD) and CUDA paths give the same bits, and so it vectorises (glibc's
// atan2f was half of the stage's time). Octant reduction to a ratio in [0, 1], a second reduction
// about tan(π/8), then Cephes' atanf polynomial: within 3e-7 rad (about a float ulp of π; tested).
// atan2(±0, x < 0) is +π, the spec's half-open interval.
template <class Real>
PACFLOW_HD_INLINE Real phase_atan2(Real y, Real x) {
  constexpr float kPi = 3.14159265358979323846f;
  constexpr float kTanPiOver8 = 0.414213562373095f;
  const Real ax = x < 0.0f ? -x : x;
  const Real ay = y < 0.0f ? -y : y;
  const auto steep = ay > ax;                       // reduce to the octant below the diagonal
  const Real small = steep ? ax : ay;
  const Real large = steep ? ay : ax;
  const auto upper = small > kTanPiOver8 * large;   // ratio above tan(π/8): use (r − 1)/(r + 1)
  const Real numerator = upper ? small - large : small;
  const Real denominator = upper ? small + large : large;
  const Real one = Real{} + 1.0f;
  const Real z = numerator / (denominator > 0.0f ? denominator : one);  // 0/0 (the origin) gives 0
  const Real z2 = z * z;
  Real r = ((8.05374449538e-2f * z2 - 1.38776856032e-1f) * z2 + 1.99777106478e-1f) * z2 - 3.33329491539e-1f;
  r = r * z2 * z + z;
  r = upper ? r + kPi / 4 : r;
  r = steep ? kPi / 2 - r : r;
  r = x < 0.0f ? kPi - r : r;
  return y < 0.0f ? -r : r;
}

// Phase in (−π, π].
PACFLOW_HD inline float phase_of(float re, float im) { return phase_atan2(im, re); }

// |z| with the squares summed in double: no overflow or underflow for any float input, and
// correctly rounded in practice, without hypotf's cost.
PACFLOW_HD inline float amplitude_of(float re, float im) {
  const double r = re, i = im;
  return static_cast<float>(std::sqrt(r * r + i * i));
}

}  // namespace pacflow::hilbert
