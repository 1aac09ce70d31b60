#include "stages/kernels/pac/methods/circular_correlation.hpp"

#include <cstring>

namespace pacflow::mi {

CircularCorrelation::CircularCorrelation(std::int64_t length)
    : length_(length),
      stride_((length + 3) / 4 * 4),
      forward_(FFTW_FORWARD, static_cast<std::size_t>(length)),
      backward_(FFTW_BACKWARD, static_cast<std::size_t>(length)) {}

CircularCorrelation::Workspace CircularCorrelation::workspace() const {
  return {fft::complex_array_f64(static_cast<std::size_t>(length_)),
          fft::complex_array_f64(static_cast<std::size_t>(length_))};
}

void CircularCorrelation::pair_spectrum(const double* u1, const double* u2, fftw_complex* out, Workspace& ws) const {
  fftw_complex* z = ws.in.get();
  for (std::int64_t t = 0; t < length_; ++t) {
    z[t][0] = u1[t];
    z[t][1] = u2[t];
  }
  forward_.execute(z, ws.out.get());
  const fftw_complex* spectrum = ws.out.get();
  // Σ_t z(t) y(t + s) = (1/T) Σ_k Z(−k) Y(k) e^{+2πiks/T}: correlate wants Z at −k.
  for (std::int64_t k = 0; k < length_; ++k) {
    const std::int64_t from = k == 0 ? 0 : length_ - k;
    out[k][0] = spectrum[from][0];
    out[k][1] = spectrum[from][1];
  }
}

void CircularCorrelation::spectrum(const double* y, fftw_complex* out, Workspace& ws) const {
  fftw_complex* in = ws.in.get();
  for (std::int64_t t = 0; t < length_; ++t) {
    in[t][0] = y[t];
    in[t][1] = 0.0;
  }
  forward_.execute(in, ws.out.get());
  std::memcpy(out, ws.out.get(), sizeof(fftw_complex) * static_cast<std::size_t>(length_));
}

void CircularCorrelation::correlate(const fftw_complex* pair, const fftw_complex* y, std::span<const std::int64_t> shifts,
                                    double* out1, double* out2, Workspace& ws) const {
  fftw_complex* product = ws.in.get();
  for (std::int64_t k = 0; k < length_; ++k) {
    const double a = pair[k][0], b = pair[k][1], c = y[k][0], d = y[k][1];
    product[k][0] = a * c - b * d;
    product[k][1] = a * d + b * c;
  }
  backward_.execute(product, ws.out.get());
  const fftw_complex* sums = ws.out.get();
  const auto n = static_cast<double>(length_);
  for (std::size_t k = 0; k < shifts.size(); ++k) {
    out1[k] = sums[shifts[k]][0] / n;
    out2[k] = sums[shifts[k]][1] / n;
  }
}

}  // namespace pacflow::mi
