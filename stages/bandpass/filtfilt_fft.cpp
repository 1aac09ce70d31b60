#include "stages/bandpass/filtfilt_fft.hpp"

#include <algorithm>
#include <stdexcept>

#include "stages/bandpass/filtfilt_math.hpp"
#include "stages/common/fast_length.hpp"

namespace pacflow::fir {

FiltFiltBank::FiltFiltBank(const std::vector<std::vector<double>>& coefficients, std::int64_t series_length)
    : length_(series_length) {
  for (const auto& b : coefficients) {
    const auto order = static_cast<std::int64_t>(b.size()) - 1;
    if (order < 1 || order >= series_length)
      throw std::invalid_argument("filter order must be in [1, series length)");
    orders_.push_back(order);
    pad_ = std::max(pad_, order);
  }
  // Valid samples need n >= T + pad + order: see the header's derivation.
  n_ = static_cast<std::size_t>(next_fast_length(length_ + 2 * pad_));
  forward_ = fft::Plan(fft::Kind::RealForward, n_);
  inverse_ = fft::Plan(fft::Kind::RealInverse, n_);

  const std::size_t bins = n_ / 2 + 1;
  auto kernel = fft::real_array(n_);
  auto spectrum = fft::complex_array(bins);
  for (const auto& b : coefficients) {
    const std::size_t order = b.size() - 1;
    std::fill(kernel.get(), kernel.get() + n_, 0.0f);
    // Autocorrelation g[d] = Σ_j b_j b_{j+d}, stored at kernel[order + d] for d in [-order, order].
    for (std::size_t d = 0; d <= order; ++d) {
      double g = 0;
      for (std::size_t j = 0; j + d <= order; ++j) g += b[j] * b[j + d];
      kernel[order + d] = kernel[order - d] = static_cast<float>(g);
    }
    forward_.forward(kernel.get(), spectrum.get());
    std::vector<std::complex<float>> k(bins);
    const float scale = 1.0f / static_cast<float>(n_);
    for (std::size_t i = 0; i < bins; ++i) k[i] = {spectrum[i][0] * scale, spectrum[i][1] * scale};
    kernels_.push_back(std::move(k));
  }
}

FiltFiltBank::Workspace FiltFiltBank::make_workspace() const {
  const std::size_t bins = n_ / 2 + 1;
  return {fft::real_array(n_), fft::complex_array(bins), fft::complex_array(bins), fft::real_array(n_)};
}

double FiltFiltBank::bytes() const {
  return static_cast<double>(kernels_.size() * (n_ / 2 + 1) * sizeof(std::complex<float>));
}

double FiltFiltBank::workspace_bytes() const {
  return static_cast<double>(2 * n_ * sizeof(float) + 2 * (n_ / 2 + 1) * sizeof(fftwf_complex));
}

void FiltFiltBank::apply(std::span<const float> x, Workspace& ws, float* out, std::size_t band_stride) const {
  const auto t = static_cast<std::size_t>(length_);
  const auto p = static_cast<std::size_t>(pad_);
  if (x.size() != t) throw std::invalid_argument("series length does not match the filter bank");
  float* e = ws.extended.get();
  // Odd extension by the largest order, then zeros up to the FFT size.
  for (std::size_t i = 0; i < n_; ++i)
    e[i] = odd_extended(x.data(), length_, pad_, static_cast<std::int64_t>(i));
  forward_.forward(e, ws.spectrum.get());

  const std::size_t bins = n_ / 2 + 1;
  for (std::size_t band = 0; band < kernels_.size(); ++band) {
    const auto& k = kernels_[band];
    fftwf_complex* s = ws.spectrum.get();
    fftwf_complex* prod = ws.product.get();
    for (std::size_t i = 0; i < bins; ++i) multiply_bin(s[i][0], s[i][1], k[i].real(), k[i].imag(), prod[i][0], prod[i][1]);
    inverse_.inverse(prod, ws.filtered.get());
    // out[i] = c[pad + i + order]: centre of the symmetric kernel, past the extension.
    const float* c = ws.filtered.get() + p + static_cast<std::size_t>(orders_[band]);
    std::copy(c, c + t, out + band * band_stride);
  }
}

}  // namespace pacflow::fir
