#pragma once
// Zero-phase FIR filtering of many bands at once by FFT convolution, equal to
// filtfilt(b, [1], x, padtype="odd", padlen=order) for each band.
//
// Why one convolution suffices: with padlen equal to the order, no kept output sample depends on
// the passes' initial conditions, so filtfilt reduces to convolving the odd extension with the
// autocorrelation of b (length 2·order + 1, symmetric). Extending by the largest order serves every
// band, because the odd extension's first samples do not depend on its length. So each series
// needs one forward FFT, then one multiply and one inverse FFT per band.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "stages/common/fftw.hpp"

namespace pacflow::fir {

class FiltFiltBank {
 public:
  // One coefficient vector per band; every order must be < series_length.
  FiltFiltBank(const std::vector<std::vector<double>>& coefficients, std::int64_t series_length);
  // The same, with band b's coefficients (orders[b] + 1 of them) made by coefficients(b) when its
  // spectrum is computed: only one band's coefficients exist at a time.
  FiltFiltBank(const std::vector<std::int64_t>& orders, std::int64_t series_length,
               const std::function<std::vector<double>(std::size_t band)>& coefficients);

  // Sizes before building (for memory estimates): the FFT length for these orders, the bytes of the
  // filter spectra of `bands` bands, and of one Workspace, at FFT length n.
  static std::size_t fft_size_for(std::int64_t series_length, std::int64_t largest_order);
  static double spectra_bytes(std::size_t bands, std::size_t n);
  static double workspace_bytes_for(std::size_t n);

  std::int64_t series_length() const { return length_; }
  std::size_t band_count() const { return kernels_.size(); }
  std::size_t fft_size() const { return n_; }
  std::int64_t pad() const { return pad_; }
  const std::vector<std::int64_t>& orders() const { return orders_; }
  // FFT of each band's kernel (the autocorrelation of b, centred), scaled 1/n: n/2 + 1 bins each.
  const std::vector<std::vector<std::complex<float>>>& kernel_spectra() const { return kernels_; }

  // Per-thread scratch; create one per worker.
  struct Workspace {
    fft::Array<float> extended;
    fft::Array<fftwf_complex> spectrum;
    fft::Array<fftwf_complex> product;
    fft::Array<float> filtered;
  };
  Workspace make_workspace() const;
  // Memory of the filter spectra, and of one Workspace, in bytes.
  double bytes() const;
  double workspace_bytes() const;

  // Filters one series into out[band][series_length] (band-major, contiguous per band, with
  // `band_stride` floats between bands).
  void apply(std::span<const float> series, Workspace& ws, float* out, std::size_t band_stride) const;

 private:
  std::int64_t length_ = 0;
  std::int64_t pad_ = 0;
  std::size_t n_ = 0;
  std::vector<std::int64_t> orders_;
  std::vector<std::vector<std::complex<float>>> kernels_;  // FFT of each autocorrelation, scaled 1/n
  fft::Plan forward_;
  fft::Plan inverse_;
};

}  // namespace pacflow::fir
