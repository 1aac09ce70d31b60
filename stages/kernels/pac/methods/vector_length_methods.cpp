// The complex-sum measures: mean vector length (Canolty et al. 2006) and normalised direct PAC
// (Özkurt & Schnitzler 2012), both from Σ A(t + s) e^{iφ(t)} for every shift s.
#include <cmath>
#include <oneapi/tbb/parallel_for.h>
#include <vector>

#include "engine/api/errors.hpp"
#include "stages/kernels/pac/methods/method.hpp"
#include "stages/kernels/pac/methods/pac_math.hpp"
#include "stages/kernels/pac/methods/shifted_sums.hpp"

namespace pacflow::mi {

namespace {

class VectorLengthMethod final : public Method {
 public:
  // threshold < 0: the mean vector length; else ndPAC with that threshold on |S|².
  explicit VectorLengthMethod(double threshold) : threshold_(threshold) {}

  void evaluate(const PairView& in, std::span<const std::int64_t> shifts, double* out,
                const std::stop_token& stop) const override {
    const std::int64_t t = in.length;
    const auto n = static_cast<double>(t);
    const bool normalised = threshold_ >= 0;
    // cos φ and sin φ of every phase band, and (ndpac) their sums Σ e^{iφ}.
    std::vector<double> cosines(static_cast<std::size_t>(in.n_pha * t)), sines(cosines.size());
    std::vector<double> sum_cos(static_cast<std::size_t>(in.n_pha), 0.0), sum_sin(sum_cos.size(), 0.0);
    for (std::int64_t p = 0; p < in.n_pha; ++p) {
      cos_sin(in.phase + p * t, t, cosines.data() + p * t, sines.data() + p * t);
      for (std::int64_t i = 0; i < t; ++i) {
        sum_cos[static_cast<std::size_t>(p)] += cosines[static_cast<std::size_t>(p * t + i)];
        sum_sin[static_cast<std::size_t>(p)] += sines[static_cast<std::size_t>(p * t + i)];
      }
    }
    const std::int64_t cells = in.n_pha * in.n_amp;
    const auto count = static_cast<std::int64_t>(shifts.size());
    oneapi::tbb::parallel_for(std::int64_t{0}, in.n_amp, [&](std::int64_t a) {
      const float* amplitude = in.amplitude + a * t;
      std::vector<double> v(amplitude, amplitude + t);
      // Mean and sample std (ddof 1) of the amplitude, two-pass: shift-invariant.
      double mean = 0, squares = 0;
      for (double x : v) mean += x;
      mean /= n;
      for (double x : v) squares += (x - mean) * (x - mean);
      const double deviation = t > 1 ? std::sqrt(squares / (n - 1.0)) : 0.0;
      std::vector<double> re(shifts.size()), im(shifts.size());
      for (std::int64_t p = 0; p < in.n_pha; ++p) {
        shifted_dot(cosines.data() + p * t, v.data(), t, shifts, re.data(), stop);
        shifted_dot(sines.data() + p * t, v.data(), t, shifts, im.data(), stop);
        for (std::int64_t k = 0; k < count; ++k) {
          const auto i = static_cast<std::size_t>(k);
          out[k * cells + p * in.n_amp + a] =
              normalised ? normalised_direct_pac(re[i], im[i], sum_cos[static_cast<std::size_t>(p)],
                                                 sum_sin[static_cast<std::size_t>(p)], mean, deviation, t, threshold_)
                         : vector_length(re[i], im[i], t);
        }
      }
    });
    // A body that saw the stop may have thrown into an already cancelled task group, which drops it.
    if (stop.stop_requested()) throw RunCancelled(-1);
  }

 private:
  double threshold_;
};

}  // namespace

namespace detail {
std::unique_ptr<Method> make_mean_vector_length() { return std::make_unique<VectorLengthMethod>(-1.0); }
std::unique_ptr<Method> make_normalised_direct_pac(double threshold) {
  return std::make_unique<VectorLengthMethod>(threshold);
}
}  // namespace detail

}  // namespace pacflow::mi
