#pragma once
// The bin of every sample of a phase series (spec §5) on CPU vectors: phase_bin (mi_math.hpp) lane
// by lane, with the same double arithmetic, so the bins are identical (tested).
#include <cstdint>
#include <numbers>

#include "stages/common/lanes.hpp"
#include "stages/kernels/pac/mi_math.hpp"

namespace pacflow::mi {

// out[i] = phase_bin(phase[i], bins) for i < length, Bytes / 8 samples per vector. Call it from a
// function compiled for the instruction set of that width (lanes.hpp).
template <int Bytes>
__attribute__((always_inline)) inline void phase_bins(const float* phase, std::int64_t length, int bins,
                                                      std::int32_t* out) {
  using Double = typename simd::Simd<Bytes>::Double;
  using HalfFloat = typename simd::Simd<Bytes>::HalfFloat;
  using HalfInt32 = typename simd::Simd<Bytes>::HalfInt32;
  constexpr int kLanes = simd::Simd<Bytes>::doubles;
  const double pi = std::numbers::pi;
  const double top = static_cast<double>(bins);
  const double last = static_cast<double>(bins - 1);
  std::int64_t i = 0;
  for (; i + kLanes <= length; i += kLanes) {
    const Double x = (__builtin_convertvector(simd::load<HalfFloat>(phase + i), Double) + pi) * top / (2.0 * pi);
    // phase_bin's clamps before truncating: x >= bins gives bins − 1, x < 0 and NaN give 0.
    const Double zero{};
    const Double clamped = x >= 0.0 ? (x < top ? x : zero + last) : zero;
    simd::store(out + i, __builtin_convertvector(clamped, HalfInt32));
  }
  for (; i < length; ++i) out[i] = phase_bin(phase[i], bins);
}

}  // namespace pacflow::mi
