#pragma once
// Counter-based random numbers: every value is a pure function of (key, counter), so results never
// depend on batch size, chunking, device count or thread schedule. The mixer is SplitMix64's
// finaliser (Steele, Lea & Flood 2014), applied to the key and the counter.
#include <cmath>
#include <cstdint>
#include <numbers>

#include "stages/common/hd.hpp"

namespace pacflow::rng {

PACFLOW_HD inline std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// 64 random bits for (key, counter).
PACFLOW_HD inline std::uint64_t bits(std::uint64_t key, std::uint64_t counter) {
  return mix64(mix64(key) ^ mix64(counter ^ 0xd1b54a32d192ed03ULL));
}

// Derives a sub-key, e.g. one per series: key(seed, series) then bits(that, sample).
PACFLOW_HD inline std::uint64_t key(std::uint64_t parent, std::uint64_t child) {
  return bits(parent, child) ^ 0x5851f42d4c957f2dULL;
}

// Uniform double in [0, 1) with 53 random bits.
PACFLOW_HD inline double uniform(std::uint64_t key_value, std::uint64_t counter) {
  return static_cast<double>(bits(key_value, counter) >> 11) * 0x1.0p-53;
}

// Uniform integer in [lo, hi] (inclusive), by the multiply-shift map of 64 bits onto the range.
PACFLOW_HD inline std::int64_t uniform_int(std::uint64_t key_value, std::uint64_t counter, std::int64_t lo,
                                           std::int64_t hi) {
  const auto range = static_cast<std::uint64_t>(hi - lo) + 1;
  const std::uint64_t b = bits(key_value, counter);
#if defined(__CUDA_ARCH__)
  const std::uint64_t high = __umul64hi(b, range);
#else
  __extension__ using uint128 = unsigned __int128;  // GCC/Clang extension; __extension__ keeps -Wpedantic quiet
  const auto high = static_cast<std::uint64_t>((static_cast<uint128>(b) * range) >> 64);
#endif
  return lo + static_cast<std::int64_t>(high);
}

// Standard normal by Box–Muller from counters 2i and 2i+1 (the cosine branch).
PACFLOW_HD inline double normal(std::uint64_t key_value, std::uint64_t i) {
  const double u1 = 1.0 - uniform(key_value, 2 * i);  // (0, 1]: log stays finite
  const double u2 = uniform(key_value, 2 * i + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace pacflow::rng
