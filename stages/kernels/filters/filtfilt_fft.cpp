#include "stages/kernels/filters/filtfilt_fft.hpp"

#include <algorithm>
#include <stdexcept>

#include "stages/common/fast_length.hpp"
#include "stages/kernels/filters/filtfilt_math.hpp"

namespace pacflow::fir {

namespace {
std::vector<std::int64_t> orders_of(const std::vector<std::vector<double>>& coefficients) {
  std::vector<std::int64_t> orders;
  for (const auto& b : coefficients) orders.push_back(static_cast<std::int64_t>(b.size()) - 1);
  return orders;
}
}  // namespace

FiltFiltBank::FiltFiltBank(const std::vector<std::vector<double>>& coefficients, std::int64_t series_length)
    : FiltFiltBank(orders_of(coefficients), series_length, [&](std::size_t band) { return coefficients[band]; }) {}

FiltFiltBank::FiltFiltBank(const std::vector<std::int64_t>& orders, std::int64_t series_length,
                           const std::function<std::vector<double>(std::size_t band)>& coefficients)
    : length_(series_length), orders_(orders) {
  for (const auto order : orders_) {
    if (order < 1 || order >= series_length)
      throw std::invalid_argument("filter order must be in [1, series length)");
    pad_ = std::max(pad_, order);
  }
  n_ = fft_size_for(length_, pad_);
  forward_ = fft::Plan(fft::Kind::RealForward, n_);
  inverse_ = fft::Plan(fft::Kind::RealInverse, n_);

  const std::size_t bins = n_ / 2 + 1;
  auto kernel = fft::real_array(n_);
  auto spectrum = fft::complex_array(bins);
  for (std::size_t band = 0; band < orders_.size(); ++band) {
    const std::vector<double> b = coefficients(band);
    const std::size_t order = b.size() - 1;
    if (static_cast<std::int64_t>(order) != orders_[band]) throw std::invalid_argument("coefficients of another order");
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

std::size_t FiltFiltBank::fft_size_for(std::int64_t series_length, std::int64_t largest_order) {
  // Valid samples need n >= T + pad + order: see the header's derivation.
  return static_cast<std::size_t>(next_fast_length(series_length + 2 * largest_order));
}

double FiltFiltBank::spectra_bytes(std::size_t bands, std::size_t n) {
  return static_cast<double>(bands * (n / 2 + 1) * sizeof(std::complex<float>));
}

double FiltFiltBank::workspace_bytes_for(std::size_t n) {
  return static_cast<double>(2 * n * sizeof(float) + 2 * (n / 2 + 1) * sizeof(fftwf_complex));
}

FiltFiltBank::Workspace FiltFiltBank::make_workspace() const {
  const std::size_t bins = n_ / 2 + 1;
  return {fft::real_array(n_), fft::complex_array(bins), fft::complex_array(bins), fft::real_array(n_)};
}

double FiltFiltBank::bytes() const { return spectra_bytes(kernels_.size(), n_); }

double FiltFiltBank::workspace_bytes() const { return workspace_bytes_for(n_); }

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
