#pragma once
// Natural logarithm of a positive normal double, written once for plain doubles, GCC vector types
// (8 lanes, see lanes.hpp) and CUDA, so every device and instruction set computes bit-identical
// results instead of depending on which libm or SIMD log the platform has.
//
// x = 2^e · m with m in [√½, √2); ln m = 2·atanh(s) with s = (m − 1)/(m + 1), |s| ≤ 0.1716, summed
// to s^21 (the next term is below 1e-19 of ln m); ln x = e·ln2_hi + (ln m + e·ln2_lo).
// Accurate to a few ulp (tested against std::log); zero, negative, subnormal, inf and NaN inputs are
// the caller's job to keep out.
#include <cstdint>
#include <type_traits>

#include "stages/common/hd.hpp"

namespace pacflow::math {

namespace detail {

template <class Int, class Real>
PACFLOW_HD_INLINE Int bits_of(Real x) {
#if defined(__CUDA_ARCH__)
  return __double_as_longlong(x);
#else
  return __builtin_bit_cast(Int, x);  // a builtin, not a call: vectors never cross a call
#endif
}

template <class Real, class Int>
PACFLOW_HD_INLINE Real real_of(Int bits) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(bits);
#else
  return __builtin_bit_cast(Real, bits);
#endif
}

// Exact conversion of a small integer (|value| < 2^51, here an exponent) to double. Vectors use the
// magic-number trick (add the bits of 1.5·2^52, subtract it as a double), which needs no AVX-512DQ
// instruction and gives the same value as the scalar cast.
template <class Real, class Int>
PACFLOW_HD_INLINE Real to_real(Int value) {
  if constexpr (std::is_same_v<Real, double>) {
    return static_cast<double>(value);
  } else {
    constexpr std::int64_t kMagicBits = 0x4338000000000000;  // 1.5 · 2^52
    constexpr double kMagic = 6755399441055744.0;
    return real_of<Real>(Int(value + kMagicBits)) - kMagic;
  }
}

}  // namespace detail

// Real: double or a GCC vector of doubles; Int: int64 of the same shape (long long on CUDA).
template <class Real, class Int>
PACFLOW_HD_INLINE Real positive_log(Real x) {
  constexpr std::int64_t kMantissa = 0x000FFFFFFFFFFFFF;
  constexpr std::int64_t kExponentOfOne = 0x3FF0000000000000;
  constexpr double kSqrtTwo = 1.41421356237309504880;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2 with its low bits zero (fdlibm)
  constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 − kLn2Hi
  const Int bits = detail::bits_of<Int>(x);
  Int exponent = (bits >> 52) - 1023;
  Real m = detail::real_of<Real>(Int((bits & kMantissa) | kExponentOfOne));  // [1, 2)
  const auto above = m > kSqrtTwo;
  m = above ? m * 0.5 : m;
  exponent = above ? exponent + 1 : exponent;
  const Real s = (m - 1.0) / (m + 1.0);
  const Real s2 = s * s;
  // 1 + s²/3 + s⁴/5 + … + s²⁰/21 by Horner's rule.
  Real series = s2 * (1.0 / 21) + 1.0 / 19;
  series = series * s2 + 1.0 / 17;
  series = series * s2 + 1.0 / 15;
  series = series * s2 + 1.0 / 13;
  series = series * s2 + 1.0 / 11;
  series = series * s2 + 1.0 / 9;
  series = series * s2 + 1.0 / 7;
  series = series * s2 + 1.0 / 5;
  series = series * s2 + 1.0 / 3;
  series = series * s2 + 1.0;
  const Real e = detail::to_real<Real>(exponent);
  return e * kLn2Hi + (2.0 * s * series + e * kLn2Lo);
}

}  // namespace pacflow::math
