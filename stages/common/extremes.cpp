#include "stages/common/extremes.hpp"

#include <algorithm>
#include <cmath>

#include "stages/common/lanes.hpp"

namespace pacflow {

namespace {

// v · 0 is ±0 for a finite v and NaN for NaN and the infinities, so the sum of those products is
// NaN exactly when some value is not finite.
template <int Bytes>
__attribute__((always_inline)) inline Extremes extremes_of(const float* x, std::int64_t n) {
  using Float = typename simd::Simd<Bytes>::Float;
  constexpr std::int64_t kLanes = simd::Simd<Bytes>::floats;
  Extremes e{x[0], x[0], true};
  float products = 0.0f;
  std::int64_t i = 0;
  if (n >= kLanes) {
    Float lo = simd::load<Float>(x), hi = lo, zeros = lo * 0.0f;
    for (i = kLanes; i + kLanes <= n; i += kLanes) {
      const auto v = simd::load<Float>(x + i);
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
      zeros += v * 0.0f;
    }
    for (int l = 0; l < kLanes; ++l) {
      e.lo = std::min(e.lo, lo[l]);
      e.hi = std::max(e.hi, hi[l]);
      products += zeros[l];
    }
  }
  for (; i < n; ++i) {
    e.lo = std::min(e.lo, x[i]);
    e.hi = std::max(e.hi, x[i]);
    products += x[i] * 0.0f;
  }
  e.finite = !std::isnan(products) && !std::isnan(x[0] * 0.0f);
  return e;
}

PACFLOW_TARGET_64 Extremes extremes_64(const float* x, std::int64_t n) { return extremes_of<64>(x, n); }
PACFLOW_TARGET_32 Extremes extremes_32(const float* x, std::int64_t n) { return extremes_of<32>(x, n); }
Extremes extremes_16(const float* x, std::int64_t n) { return extremes_of<16>(x, n); }

}  // namespace

Extremes extremes(const float* x, std::int64_t n, int simd_bytes) {
  const int width = simd::width_or_widest(simd_bytes);
  return (width == 64 ? extremes_64 : (width == 32 ? extremes_32 : extremes_16))(x, n);
}

}  // namespace pacflow
