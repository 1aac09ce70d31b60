#include "stages/kernels/pac/methods/distinct_ranks.hpp"

#include <algorithm>
#include <limits>

#include "stages/common/lanes.hpp"

namespace pacflow::mi {

namespace {

// Lanes hold the values being ranked, two vectors of them at a time, and every value is broadcast
// against them in turn: the counts accumulate in the lanes, with no horizontal sums. The values are
// padded to an even number of vectors with +inf, whose counts are not read.
template <int Bytes>
__attribute__((always_inline)) inline bool distinct_ranks_in(const float* x, std::size_t n, std::uint32_t* rank) {
  using Float = typename simd::Simd<Bytes>::Float;
  using Int = typename simd::Simd<Bytes>::Int32;
  constexpr std::size_t kLanes = Bytes / sizeof(float);
  const std::size_t vectors = (n + 2 * kLanes - 1) / (2 * kLanes) * 2;
  alignas(64) float padded[kDistinctRanksUpTo + 2 * kLanes];
  std::copy_n(x, n, padded);
  std::fill(padded + n, padded + vectors * kLanes, std::numeric_limits<float>::infinity());
  alignas(64) std::int32_t below[kDistinctRanksUpTo + 2 * kLanes];
  for (std::size_t v = 0; v < vectors; v += 2) {
    const Float mine = simd::load<Float>(padded + v * kLanes), next = simd::load<Float>(padded + (v + 1) * kLanes);
    Int count = {}, count_next = {};
    for (std::size_t j = 0; j < n; ++j) {
      Float other;
      for (std::size_t l = 0; l < kLanes; ++l) other[l] = padded[j];  // a broadcast
      count -= other < mine;  // a true comparison is -1
      count_next -= other < next;
    }
    simd::store(below + v * kLanes, count);
    simd::store(below + (v + 1) * kLanes, count_next);
  }
  std::uint64_t taken[kDistinctRanksUpTo / 64] = {};
  for (std::size_t i = 0; i < n; ++i) {
    const auto r = static_cast<std::uint32_t>(below[i]);
    std::uint64_t& word = taken[r / 64];
    const std::uint64_t bit = std::uint64_t{1} << (r % 64);
    if ((word & bit) != 0) return false;  // two values with as many below them: equal
    word |= bit;
    rank[i] = r;
  }
  return true;
}

PACFLOW_TARGET_64 bool distinct_ranks_64(const float* x, std::size_t n, std::uint32_t* rank) {
  return distinct_ranks_in<64>(x, n, rank);
}
PACFLOW_TARGET_32 bool distinct_ranks_32(const float* x, std::size_t n, std::uint32_t* rank) {
  return distinct_ranks_in<32>(x, n, rank);
}
bool distinct_ranks_16(const float* x, std::size_t n, std::uint32_t* rank) { return distinct_ranks_in<16>(x, n, rank); }

}  // namespace

bool distinct_ranks(const float* x, std::size_t n, std::uint32_t* rank) {
  const int width = simd::simd_width();
  return (width == 64 ? distinct_ranks_64 : (width == 32 ? distinct_ranks_32 : distinct_ranks_16))(x, n, rank);
}

}  // namespace pacflow::mi
