#include "stages/kernels/pac/methods/distinct_ranks.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "stages/common/lanes.hpp"

namespace pacflow::mi {

namespace {

// Lanes hold the values being ranked, G vectors of them at a time, and every value is broadcast
// against them in turn: the counts accumulate in the lanes, with no horizontal sums, and each
// broadcast serves G vectors. below[i] for the values at mine[0 .. G · lanes).
template <int Bytes, int G>
__attribute__((always_inline)) inline void count_below(const float* mine, const float* values, std::size_t n,
                                                       std::int32_t* below) {
  using Float = typename simd::Simd<Bytes>::Float;
  using Int = typename simd::Simd<Bytes>::Int32;
  constexpr std::size_t kLanes = Bytes / sizeof(float);
  Float ranked[G];
  Int count[G] = {};
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) ranked[g] = simd::load<Float>(mine + g * kLanes);
  for (std::size_t j = 0; j < n; ++j) {
    Float other;
    for (std::size_t l = 0; l < kLanes; ++l) other[l] = values[j];  // a broadcast
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) count[g] -= other < ranked[g];  // a true comparison is -1
  }
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) simd::store(below + g * kLanes, count[g]);
}

#if defined(__x86_64__)
// The same with AVX-512's comparison masks: a masked subtraction adds each comparison, where the
// vector form turns every mask into a vector of -1 first (two instructions instead of one).
template <int G>
PACFLOW_TARGET_64 __attribute__((always_inline)) inline void count_below_512(const float* mine, const float* values,
                                                                             std::size_t n, std::int32_t* below) {
  __m512 ranked[G];
  __m512i count[G];
  const __m512i minus_one = _mm512_set1_epi32(-1);
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) {
    ranked[g] = _mm512_load_ps(mine + g * 16);
    count[g] = _mm512_setzero_si512();
  }
  for (std::size_t j = 0; j < n; ++j) {
    const __m512 other = _mm512_set1_ps(values[j]);
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g)
      count[g] = _mm512_mask_sub_epi32(count[g], _mm512_cmp_ps_mask(other, ranked[g], _CMP_LT_OQ), count[g], minus_one);
  }
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) _mm512_store_si512(below + g * 16, count[g]);
}
#endif

// below[i] for every vector of `mine` (vectors of the padded values) against the n values, G
// vectors a pass, then the rest in halves.
template <int Bytes, int G>
__attribute__((always_inline)) inline void count_all_below(const float* mine, std::size_t vectors, const float* values,
                                                           std::size_t n, std::int32_t* below) {
  constexpr std::size_t kLanes = Bytes / sizeof(float);
  std::size_t v = 0;
  for (; v + G <= vectors; v += G) count_below<Bytes, G>(mine + v * kLanes, values, n, below + v * kLanes);
  if constexpr (G > 1)
    if (v < vectors) count_all_below<Bytes, G / 2>(mine + v * kLanes, vectors - v, values, n, below + v * kLanes);
}

#if defined(__x86_64__)
// The same passes with AVX-512's masks (a template of its own: GCC inlines an intrinsic only into
// a function compiled for its instruction set).
template <int G>
PACFLOW_TARGET_64 __attribute__((always_inline)) inline void count_all_below_512(const float* mine, std::size_t vectors,
                                                                                 const float* values, std::size_t n,
                                                                                 std::int32_t* below) {
  std::size_t v = 0;
  for (; v + G <= vectors; v += G) count_below_512<G>(mine + v * 16, values, n, below + v * 16);
  if constexpr (G > 1)
    if (v < vectors) count_all_below_512<G / 2>(mine + v * 16, vectors - v, values, n, below + v * 16);
}
#endif

// The values copied into whole vectors of `lanes` and padded with +inf, whose counts are not read;
// returns the number of vectors.
std::size_t padded_values(const float* x, std::size_t n, std::size_t lanes, float* padded) {
  const std::size_t vectors = (n + lanes - 1) / lanes;
  std::copy_n(x, n, padded);
  std::fill(padded + n, padded + vectors * lanes, std::numeric_limits<float>::infinity());
  return vectors;
}

// rank[i] = below[i], or false when two values are equal. Summed over the values, the counts of
// values below each count every pair of unequal values once (one of the two is below the other)
// and a pair of equal values not at all: they make n(n − 1)/2 exactly when no two are equal.
bool ranks_if_distinct(const std::int32_t* below, std::size_t n, std::uint32_t* rank) {
  std::int64_t pairs = 0;
  for (std::size_t i = 0; i < n; ++i) pairs += below[i];
  std::memcpy(rank, below, n * sizeof(std::uint32_t));
  return pairs == static_cast<std::int64_t>(n * (n - 1) / 2);
}

// Room for up to kDistinctRanksUpTo values in whole vectors of the widest width.
constexpr std::size_t kPadded = kDistinctRanksUpTo + 16;

PACFLOW_TARGET_64 bool distinct_ranks_64(const float* x, std::size_t n, std::uint32_t* rank) {
  alignas(64) float padded[kPadded];
  alignas(64) std::int32_t below[kPadded];
  const std::size_t vectors = padded_values(x, n, 16, padded);
#if defined(__x86_64__)
  count_all_below_512<8>(padded, vectors, padded, n, below);  // eight vectors a pass: AVX-512 has 32 registers
#else
  count_all_below<64, 8>(padded, vectors, padded, n, below);
#endif
  return ranks_if_distinct(below, n, rank);
}
PACFLOW_TARGET_32 bool distinct_ranks_32(const float* x, std::size_t n, std::uint32_t* rank) {
  alignas(64) float padded[kPadded];
  alignas(64) std::int32_t below[kPadded];
  count_all_below<32, 4>(padded, padded_values(x, n, 8, padded), padded, n, below);  // four: AVX2 has 16 registers
  return ranks_if_distinct(below, n, rank);
}
bool distinct_ranks_16(const float* x, std::size_t n, std::uint32_t* rank) {
  alignas(64) float padded[kPadded];
  alignas(64) std::int32_t below[kPadded];
  count_all_below<16, 4>(padded, padded_values(x, n, 4, padded), padded, n, below);
  return ranks_if_distinct(below, n, rank);
}

}  // namespace

bool distinct_ranks(const float* x, std::size_t n, std::uint32_t* rank, int simd_bytes) {
  const int width = simd::width_or_widest(simd_bytes);
  return (width == 64 ? distinct_ranks_64 : (width == 32 ? distinct_ranks_32 : distinct_ranks_16))(x, n, rank);
}

}  // namespace pacflow::mi
