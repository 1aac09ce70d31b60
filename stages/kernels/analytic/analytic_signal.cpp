#include "stages/kernels/analytic/analytic_signal.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "stages/common/lanes.hpp"
#include "stages/kernels/analytic/hilbert_math.hpp"

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

}  // namespace

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
  const std::size_t half = n / 2;
  for (std::size_t k = 0; k <= half; ++k) {
    const float w = analytic_weight(static_cast<std::int64_t>(k), n_);
    s[k][0] *= w;
    s[k][1] *= w;
  }
  for (std::size_t k = half + 1; k < n; ++k) s[k][0] = s[k][1] = 0.0f;
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
    for (std::size_t i = 0; i < count; ++i) out[i] = amplitude_of(window[i][0] * scale, window[i][1] * scale);
  }
}

}  // namespace pacflow::hilbert
