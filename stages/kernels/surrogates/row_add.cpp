#include "stages/kernels/surrogates/row_add.hpp"

#include "stages/common/lanes.hpp"

namespace pacflow::surrogates {

namespace {

template <int Bytes>
__attribute__((always_inline)) inline void add_row_in(double* to, const double* from, std::int64_t n) {
  using Double = typename simd::Simd<Bytes>::Double;
  constexpr std::int64_t kLanes = simd::Simd<Bytes>::doubles;
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    simd::store(to + i, simd::load<Double>(to + i) + simd::load<Double>(from + i));
  for (; i < n; ++i) to[i] += from[i];
}

PACFLOW_TARGET_64 void add_row_64(double* to, const double* from, std::int64_t n) { add_row_in<64>(to, from, n); }
PACFLOW_TARGET_32 void add_row_32(double* to, const double* from, std::int64_t n) { add_row_in<32>(to, from, n); }
void add_row_16(double* to, const double* from, std::int64_t n) { add_row_in<16>(to, from, n); }

}  // namespace

void add_row(double* to, const double* from, std::int64_t n) {
  const int width = simd::simd_width();
  (width == 64 ? add_row_64 : (width == 32 ? add_row_32 : add_row_16))(to, from, n);
}

}  // namespace pacflow::surrogates
