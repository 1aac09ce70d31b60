#pragma once
// Analytic signal of real series by FFT (scipy.signal.hilbert(x, N), first T samples kept).
#include <cstdint>
#include <span>

#include "stages/common/fftw.hpp"

namespace pacflow::hilbert {

enum class Output { Phase, Amplitude };

class AnalyticSignal {
 public:
  // `fft_length` >= series_length: the transform size N.
  AnalyticSignal(std::int64_t series_length, std::int64_t fft_length);

  struct Workspace {
    fft::Array<float> real;
    fft::Array<fftwf_complex> spectrum;
    fft::Array<fftwf_complex> analytic;
  };
  Workspace make_workspace() const;
  double workspace_bytes() const;  // of one Workspace
  static double workspace_bytes_for(std::int64_t fft_length);  // the same, before building

  // Writes the phase or the amplitude of x's analytic signal into out: samples [first, first + kept)
  // of it (kept < 0: every sample from first on), the window a padded series keeps.
  void apply(std::span<const float> x, Output what, Workspace& ws, float* out, std::int64_t first = 0,
             std::int64_t kept = -1) const;

  std::int64_t fft_length() const { return n_; }

 private:
  std::int64_t length_;
  std::int64_t n_;
  fft::Plan forward_;
  fft::Plan inverse_;
};

// The per-bin and per-sample steps of AnalyticSignal::apply, in vectors of `simd_bytes` (16, 32 or
// 64; 0: the widest this CPU has), each lane the bits of the scalar definition (hilbert_math.hpp):
// - weight_spectrum: bins [0, n / 2] of an r2c spectrum of length n times analytic_weight, and the
//   bins past them (up to n) zeroed;
// - write_amplitudes: out[i] = amplitude_of(z[i].re · scale, z[i].im · scale) for i < count.
void weight_spectrum(fftwf_complex* spectrum, std::int64_t n, int simd_bytes = 0);
void write_amplitudes(const fftwf_complex* z, std::size_t count, float scale, float* out, int simd_bytes = 0);

}  // namespace pacflow::hilbert
