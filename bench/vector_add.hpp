#pragma once
// The roofline the MI kernel is compared with (issue 4): a plain vector add y[i] += x[i] over
// float arrays, in native vectors of the widest width the CPU has (the same dispatch as the
// kernel), so "adds per second" means the same thing on both sides.
#include <cstddef>
#include <cstring>

#include "stages/common/lanes.hpp"

namespace pacflow::bench {

namespace detail {
template <int Bytes>
__attribute__((always_inline)) inline void vector_add(float* y, const float* x, std::size_t n) {
  using Float = typename simd::Simd<Bytes>::Float;
  constexpr std::size_t lanes = simd::Simd<Bytes>::floats;
  for (std::size_t i = 0; i + lanes <= n; i += lanes) {
    Float a, b;
    std::memcpy(&a, y + i, sizeof(a));
    std::memcpy(&b, x + i, sizeof(b));
    a += b;
    std::memcpy(y + i, &a, sizeof(a));
  }
}
PACFLOW_TARGET_64 inline void vector_add_64(float* y, const float* x, std::size_t n) { vector_add<64>(y, x, n); }
PACFLOW_TARGET_32 inline void vector_add_32(float* y, const float* x, std::size_t n) { vector_add<32>(y, x, n); }
inline void vector_add_16(float* y, const float* x, std::size_t n) { vector_add<16>(y, x, n); }
}  // namespace detail

// y[i] += x[i] for i < n (n a multiple of 16).
inline void vector_add(float* y, const float* x, std::size_t n) {
  const int width = simd::simd_width();
  (width == 64 ? detail::vector_add_64 : (width == 32 ? detail::vector_add_32 : detail::vector_add_16))(y, x, n);
}

}  // namespace pacflow::bench
