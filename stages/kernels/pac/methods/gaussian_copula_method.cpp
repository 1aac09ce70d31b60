// Gaussian-copula PAC (Ince et al. 2017, TensorPAC's gauss_cop_pac): the mutual information in bits
// between (copnorm(sin φ), copnorm(cos φ)) and copnorm(A) under a Gaussian model.
#include <oneapi/tbb/parallel_for.h>
#include <vector>

#include "engine/api/errors.hpp"
#include "stages/kernels/pac/methods/copula.hpp"
#include "stages/kernels/pac/methods/method.hpp"
#include "stages/kernels/pac/methods/pac_math.hpp"
#include "stages/kernels/pac/methods/shifted_sums.hpp"

namespace pacflow::mi {

namespace {

class GaussianCopulaMethod final : public Method {
 public:
  GaussianCopulaMethod(std::int64_t length, double bias_bits) : copula_(length), bias_bits_(bias_bits) {}

  void evaluate(const PairView& in, std::span<const std::int64_t> shifts, double* out,
                const std::stop_token& stop) const override {
    const std::int64_t t = in.length;
    const auto tn = static_cast<std::size_t>(t);
    const std::int64_t zero[1] = {0};
    // Copula-normalised sin φ and cos φ of every phase band, and their (shift-invariant) moments.
    std::vector<double> x1(static_cast<std::size_t>(in.n_pha) * tn), x2(x1.size());
    std::vector<GaussianMoments> phase_moments(static_cast<std::size_t>(in.n_pha));
    {
      std::vector<double> cosines(tn), sines(tn);
      for (std::int64_t p = 0; p < in.n_pha; ++p) {
        cos_sin(in.phase + p * t, t, cosines.data(), sines.data());
        double* a = x1.data() + p * t;
        double* b = x2.data() + p * t;
        copula_.apply(sines.data(), a);
        copula_.apply(cosines.data(), b);
        GaussianMoments& m = phase_moments[static_cast<std::size_t>(p)];
        shifted_dot(a, a, t, zero, &m.x1x1);
        shifted_dot(b, b, t, zero, &m.x2x2);
        shifted_dot(a, b, t, zero, &m.x1x2);
      }
    }
    const std::int64_t cells = in.n_pha * in.n_amp;
    const auto count = shifts.size();
    oneapi::tbb::parallel_for(std::int64_t{0}, in.n_amp, [&](std::int64_t a) {
      const float* amplitude = in.amplitude + a * t;
      const std::vector<double> values(amplitude, amplitude + t);
      std::vector<double> y(tn);
      copula_.apply(values.data(), y.data());
      double yy = 0;
      shifted_dot(y.data(), y.data(), t, zero, &yy);
      std::vector<double> x1y(count), x2y(count);
      for (std::int64_t p = 0; p < in.n_pha; ++p) {
        shifted_dot(x1.data() + p * t, y.data(), t, shifts, x1y.data(), stop);
        shifted_dot(x2.data() + p * t, y.data(), t, shifts, x2y.data(), stop);
        GaussianMoments m = phase_moments[static_cast<std::size_t>(p)];
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
  CopulaNormaliser copula_;
  double bias_bits_;
};

}  // namespace

namespace detail {
std::unique_ptr<Method> make_gaussian_copula(std::int64_t length, double bias_bits) {
  return std::make_unique<GaussianCopulaMethod>(length, bias_bits);
}
}  // namespace detail

}  // namespace pacflow::mi
