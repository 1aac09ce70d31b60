#pragma once
// Per-element arithmetic of the FFT filtfilt (filtfilt_fft.hpp), shared by the CPU bank and the
// CUDA kernels so both compute the same bits.
#include <cstdint>

#include "stages/common/hd.hpp"

namespace pacflow::fir {

// Sample i of x (length n) extended oddly by `pad` samples at both ends, then zero up to any FFT
// size: 2·x[0] − x[pad − i] before the series, x[i − pad] inside, 2·x[n−1] − x[2n + pad − 2 − i]
// after it (scipy's padtype="odd").
PACFLOW_HD inline float odd_extended(const float* x, std::int64_t n, std::int64_t pad, std::int64_t i) {
  if (i < pad) return 2 * x[0] - x[pad - i];
  if (i < pad + n) return x[i - pad];
  if (i < n + 2 * pad) return 2 * x[n - 1] - x[2 * n + pad - 2 - i];
  return 0.0f;
}

// (a_re + i a_im) · (k_re + i k_im): a signal spectrum bin times a filter spectrum bin.
PACFLOW_HD inline void multiply_bin(float a_re, float a_im, float k_re, float k_im, float& re, float& im) {
  re = a_re * k_re - a_im * k_im;
  im = a_re * k_im + a_im * k_re;
}

}  // namespace pacflow::fir
