// Gaussian-copula PAC (Ince et al. 2017, TensorPAC's gauss_cop_pac): the mutual information in bits
// between (copnorm(sin φ), copnorm(cos φ)) and copnorm(A) under a Gaussian model.
#include <oneapi/tbb/parallel_for.h>
#include <vector>

#include "engine/api/errors.hpp"
#include "stages/kernels/pac/methods/circular_correlation.hpp"
#include "stages/kernels/pac/methods/copula.hpp"
#include "stages/kernels/pac/methods/method.hpp"
#include "stages/kernels/pac/methods/pac_math.hpp"
#include "stages/kernels/pac/methods/shifted_sums.hpp"

namespace pacflow::mi {

namespace {

// From this many shifts on, the surrogate sums come from FFTs (circular_correlation.hpp); below it
// the dot products cost less than the transforms (about 20 shifts at T = 1500).
constexpr std::size_t kFftFrom = 32;

// Copula-normalised sin φ and cos φ of every phase band of a series, their (shift-invariant)
// moments, and, for many shifts, their spectra.
struct PhaseRows {
  std::vector<double> x1, x2;
  std::vector<GaussianMoments> moments;
  fft::ComplexArrayF64 spectra;  // [p][stride], when correlated by FFT
};

class GaussianCopulaMethod final : public Method {
 public:
  GaussianCopulaMethod(std::int64_t length, double bias_bits)
      : copula_(length), correlation_(length), bias_bits_(bias_bits) {}

  void evaluate(const PairView& in, std::span<const std::int64_t> shifts, double* out,
                const std::stop_token& stop) const override {
    const std::int64_t t = in.length;
    const std::int64_t zero[1] = {0};
    const auto count = shifts.size();
    const bool by_fft = count >= kFftFrom;
    const PhaseRows rows = phase_rows(in, by_fft);
    const std::int64_t cells = in.n_pha * in.n_amp;
    oneapi::tbb::parallel_for(std::int64_t{0}, in.n_amp, [&](std::int64_t a) {
      std::vector<double> y(static_cast<std::size_t>(t));
      copula_.apply(in.amplitude + a * t, y.data());
      double yy = 0;
      shifted_dot(y.data(), y.data(), t, zero, &yy);
      CircularCorrelation::Workspace ws;
      fft::ComplexArrayF64 y_spectrum;
      if (by_fft) {
        ws = correlation_.workspace();
        y_spectrum = fft::complex_array_f64(static_cast<std::size_t>(t));
        correlation_.spectrum(y.data(), y_spectrum.get(), ws);
      }
      std::vector<double> x1y(count), x2y(count);
      for (std::int64_t p = 0; p < in.n_pha; ++p) {
        const double* x1 = rows.x1.data() + p * t;
        const double* x2 = rows.x2.data() + p * t;
        if (by_fft) {
          if (stop.stop_requested()) throw RunCancelled(-1);
          correlation_.correlate(rows.spectra.get() + p * correlation_.stride(), y_spectrum.get(), shifts, x1y.data(),
                                 x2y.data(), ws);
          for (std::size_t k = 0; k < count; ++k)
            if (shifts[k] == 0) {  // the observed alignment: the mi stage's own sums, to the bit
              shifted_dot(x1, y.data(), t, zero, &x1y[k]);
              shifted_dot(x2, y.data(), t, zero, &x2y[k]);
            }
        } else {
          shifted_dot(x1, y.data(), t, shifts, x1y.data(), stop);
          shifted_dot(x2, y.data(), t, shifts, x2y.data(), stop);
        }
        GaussianMoments m = rows.moments[static_cast<std::size_t>(p)];
        m.yy = yy;
        for (std::size_t k = 0; k < count; ++k) {
          m.x1y = x1y[k];
          m.x2y = x2y[k];
          out[static_cast<std::int64_t>(k) * cells + p * in.n_amp + a] = gaussian_copula_mi(m, bias_bits_);
        }
      }
    });
    // A body that saw the stop may have thrown into an already cancelled task group, which drops it.
    if (stop.stop_requested()) throw RunCancelled(-1);
  }

 private:
  PhaseRows phase_rows(const PairView& in, bool with_spectra) const {
    const std::int64_t t = in.length;
    const auto tn = static_cast<std::size_t>(t);
    const std::int64_t zero[1] = {0};
    PhaseRows rows{std::vector<double>(static_cast<std::size_t>(in.n_pha) * tn),
                   std::vector<double>(static_cast<std::size_t>(in.n_pha) * tn),
                   std::vector<GaussianMoments>(static_cast<std::size_t>(in.n_pha)), {}};
    CircularCorrelation::Workspace ws;
    if (with_spectra) {
      ws = correlation_.workspace();
      rows.spectra = fft::complex_array_f64(static_cast<std::size_t>(in.n_pha * correlation_.stride()));
    }
    for (std::int64_t p = 0; p < in.n_pha; ++p) {
      double* a = rows.x1.data() + p * t;
      double* b = rows.x2.data() + p * t;
      copula_.apply_sin_cos(in.phase + p * t, a, b);
      GaussianMoments& m = rows.moments[static_cast<std::size_t>(p)];
      shifted_dot(a, a, t, zero, &m.x1x1);
      shifted_dot(b, b, t, zero, &m.x2x2);
      shifted_dot(a, b, t, zero, &m.x1x2);
      if (with_spectra) correlation_.pair_spectrum(a, b, rows.spectra.get() + p * correlation_.stride(), ws);
    }
    return rows;
  }

  CopulaNormaliser copula_;
  CircularCorrelation correlation_;
  double bias_bits_;
};

}  // namespace

namespace detail {
std::unique_ptr<Method> make_gaussian_copula(std::int64_t length, double bias_bits) {
  return std::make_unique<GaussianCopulaMethod>(length, bias_bits);
}
}  // namespace detail

}  // namespace pacflow::mi
