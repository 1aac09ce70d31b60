#include "stages/kernels/analytic/analytic_signal.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "stages/common/lanes.hpp"
#include "stages/kernels/analytic/hilbert_math.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace pacflow::hilbert {

namespace {

// Phases of t samples, a vector of Bytes at a time (the tail one by one with the same arithmetic).
template <int Bytes>
__attribute__((always_inline)) inline void write_phases(const fftwf_complex* z, std::size_t t, float* out) {
  using Float = typename simd::Simd<Bytes>::Float;
  constexpr auto lanes = static_cast<std::size_t>(simd::Simd<Bytes>::floats);
  std::size_t i = 0;
  for (; i + lanes <= t; i += lanes) {
    Float re, im;
    for (std::size_t l = 0; l < lanes; ++l) {
      re[l] = z[i + l][0];
      im[l] = z[i + l][1];
    }
    const Float phase = phase_atan2(im, re);
    std::memcpy(out + i, &phase, sizeof(phase));
  }
  for (; i < t; ++i) out[i] = phase_of(z[i][0], z[i][1]);
}

PACFLOW_TARGET_64 void write_phases_64(const fftwf_complex* z, std::size_t t, float* out) { write_phases<64>(z, t, out); }
PACFLOW_TARGET_32 void write_phases_32(const fftwf_complex* z, std::size_t t, float* out) { write_phases<32>(z, t, out); }
void write_phases_16(const fftwf_complex* z, std::size_t t, float* out) { write_phases<16>(z, t, out); }

// amplitude_of on Bytes / 8 samples at a time: the float scaling, the squares summed in double, the
// root and the rounding back to float are each lane's scalar operations. squares() and
// write_rounded() are the vector steps around the root, which each width's function takes with its
// own instruction (IEEE square roots: each lane the bits of std::sqrt); the tail goes one by one.
// The steps hand their lanes over through memory (which the compilers keep in registers): a vector
// passed by value between a function with a target instruction set and one without would change
// the calling convention.
template <int Bytes>
__attribute__((always_inline)) inline void squares(const fftwf_complex* z, float scale, double* to) {
  using Half = typename simd::Simd<Bytes>::HalfFloat;
  using Double = typename simd::Simd<Bytes>::Double;
  Half re, im;
  for (int l = 0; l < simd::Simd<Bytes>::doubles; ++l) {
    re[l] = z[l][0];
    im[l] = z[l][1];
  }
  const Double r = __builtin_convertvector(re * scale, Double), m = __builtin_convertvector(im * scale, Double);
  simd::store(to, r * r + m * m);
}
template <int Bytes>
__attribute__((always_inline)) inline void write_rounded(float* out, const double* from) {
  using Double = typename simd::Simd<Bytes>::Double;
  const auto rounded = __builtin_convertvector(simd::load<Double>(from), typename simd::Simd<Bytes>::HalfFloat);
  std::memcpy(out, &rounded, sizeof(rounded));
}

// Each returns how many samples it wrote (whole vectors); the caller does the rest.
#if defined(__x86_64__)
// GCC 12 takes _mm512_sqrt_pd's undefined pass-through operand for an uninitialised read.
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
PACFLOW_TARGET_64 std::size_t write_amplitudes_64(const fftwf_complex* z, std::size_t count, float scale, float* out) {
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    alignas(64) double lanes[8];
    squares<64>(z + i, scale, lanes);
    _mm512_store_pd(lanes, _mm512_sqrt_pd(_mm512_load_pd(lanes)));
    write_rounded<64>(out + i, lanes);
  }
  return i;
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
PACFLOW_TARGET_32 std::size_t write_amplitudes_32(const fftwf_complex* z, std::size_t count, float scale, float* out) {
  std::size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    alignas(32) double lanes[4];
    squares<32>(z + i, scale, lanes);
    _mm256_store_pd(lanes, _mm256_sqrt_pd(_mm256_load_pd(lanes)));
    write_rounded<32>(out + i, lanes);
  }
  return i;
}
std::size_t write_amplitudes_16(const fftwf_complex* z, std::size_t count, float scale, float* out) {
  std::size_t i = 0;
  for (; i + 2 <= count; i += 2) {
    alignas(16) double lanes[2];
    squares<16>(z + i, scale, lanes);
    _mm_store_pd(lanes, _mm_sqrt_pd(_mm_load_pd(lanes)));
    write_rounded<16>(out + i, lanes);
  }
  return i;
}
#else
std::size_t write_amplitudes_64(const fftwf_complex*, std::size_t, float, float*) { return 0; }
std::size_t write_amplitudes_32(const fftwf_complex*, std::size_t, float, float*) { return 0; }
std::size_t write_amplitudes_16(const fftwf_complex*, std::size_t, float, float*) { return 0; }
#endif

// Bins [1, last] of the spectrum doubled (analytic_weight 2; ×2 is exact, as the scalar product
// is), a vector of floats at a time over their interleaved parts.
template <int Bytes>
__attribute__((always_inline)) inline void double_bins(fftwf_complex* s, std::size_t first, std::size_t last) {
  using Float = typename simd::Simd<Bytes>::Float;
  constexpr auto lanes = static_cast<std::size_t>(simd::Simd<Bytes>::floats);
  float* p = reinterpret_cast<float*>(s) + 2 * first;  // the spectrum as interleaved floats
  const std::size_t floats = 2 * (last + 1 - first);
  std::size_t i = 0;
  for (; i + lanes <= floats; i += lanes) simd::store(p + i, simd::load<Float>(p + i) * 2.0f);
  for (; i < floats; ++i) p[i] *= 2.0f;
}

PACFLOW_TARGET_64 void double_bins_64(fftwf_complex* s, std::size_t first, std::size_t last) {
  double_bins<64>(s, first, last);
}
PACFLOW_TARGET_32 void double_bins_32(fftwf_complex* s, std::size_t first, std::size_t last) {
  double_bins<32>(s, first, last);
}
void double_bins_16(fftwf_complex* s, std::size_t first, std::size_t last) { double_bins<16>(s, first, last); }

}  // namespace

void weight_spectrum(fftwf_complex* spectrum, std::int64_t n, int simd_bytes) {
  // analytic_weight: 1 at DC and (n even) at n / 2, which leaves those bins as they are; 2 below
  // n / 2; 0 above it.
  const auto half = static_cast<std::size_t>(n / 2);
  const std::size_t last_doubled = n % 2 == 0 ? half - 1 : half;
  if (last_doubled >= 1) {
    const int width = simd::width_or_widest(simd_bytes);
    (width == 64 ? double_bins_64 : (width == 32 ? double_bins_32 : double_bins_16))(spectrum, 1, last_doubled);
  }
  float* floats = reinterpret_cast<float*>(spectrum);
  std::fill(floats + 2 * (half + 1), floats + 2 * static_cast<std::size_t>(n), 0.0f);
}

void write_amplitudes(const fftwf_complex* z, std::size_t count, float scale, float* out, int simd_bytes) {
  const int width = simd::width_or_widest(simd_bytes);
  std::size_t i =
      (width == 64 ? write_amplitudes_64 : (width == 32 ? write_amplitudes_32 : write_amplitudes_16))(z, count, scale, out);
  for (; i < count; ++i) out[i] = amplitude_of(z[i][0] * scale, z[i][1] * scale);
}

AnalyticSignal::AnalyticSignal(std::int64_t series_length, std::int64_t fft_length)
    : length_(series_length),
      n_(fft_length),
      forward_(fft::Kind::RealForward, static_cast<std::size_t>(fft_length)),
      inverse_(fft::Kind::ComplexInverse, static_cast<std::size_t>(fft_length)) {
  if (fft_length < series_length) throw std::invalid_argument("FFT length shorter than the series");
}

AnalyticSignal::Workspace AnalyticSignal::make_workspace() const {
  const auto n = static_cast<std::size_t>(n_);
  return {fft::real_array(n), fft::complex_array(n), fft::complex_array(n)};
}

double AnalyticSignal::workspace_bytes() const { return workspace_bytes_for(n_); }

double AnalyticSignal::workspace_bytes_for(std::int64_t fft_length) {
  return static_cast<double>(fft_length) * static_cast<double>(sizeof(float) + 2 * sizeof(fftwf_complex));
}

void AnalyticSignal::apply(std::span<const float> x, Output what, Workspace& ws, float* out, std::int64_t first,
                           std::int64_t kept) const {
  const auto n = static_cast<std::size_t>(n_);
  const auto t = static_cast<std::size_t>(length_);
  float* real = ws.real.get();
  std::copy(x.begin(), x.end(), real);
  std::fill(real + t, real + n, 0.0f);
  fftwf_complex* s = ws.spectrum.get();
  forward_.forward(real, s);
  // r2c fills bins 0..n/2; weight them and zero the negative frequencies.
  weight_spectrum(s, n_);
  fftwf_complex* z = ws.analytic.get();
  inverse_.complex(s, z);
  const float scale = 1.0f / static_cast<float>(n_);
  if (first < 0 || first > length_ || kept > length_ - first) throw std::invalid_argument("window outside the series");
  const fftwf_complex* window = z + first;
  const auto count = static_cast<std::size_t>(kept < 0 ? length_ - first : kept);
  if (what == Output::Phase) {
    const int width = simd::simd_width();
    (width == 64 ? write_phases_64 : (width == 32 ? write_phases_32 : write_phases_16))(window, count, out);
  } else {
    write_amplitudes(window, count, scale, out);
  }
}

}  // namespace pacflow::hilbert
