// Phase-locking value (Penny et al. 2008): |Σ e^{i(φ(t) − ψ(t + s))}| / T, with ψ the phase of the
// amplitude envelope filtered in the phase band (stage envelope_phase).
#include <oneapi/tbb/parallel_for.h>
#include <stdexcept>
#include <vector>

#include "engine/api/errors.hpp"
#include "stages/kernels/pac/methods/method.hpp"
#include "stages/kernels/pac/methods/pac_math.hpp"
#include "stages/kernels/pac/methods/shifted_sums.hpp"

namespace pacflow::mi {

namespace {

class PhaseLockingValueMethod final : public Method {
 public:
  void evaluate(const PairView& in, std::span<const std::int64_t> shifts, double* out,
                const std::stop_token& stop) const override {
    if (!in.envelope_phase) throw std::logic_error("plv evaluated without envelope phases");
    const std::int64_t t = in.length;
    const auto tn = static_cast<std::size_t>(t);
    std::vector<double> cos_phi(static_cast<std::size_t>(in.n_pha) * tn), sin_phi(cos_phi.size());
    for (std::int64_t p = 0; p < in.n_pha; ++p) cos_sin(in.phase + p * t, t, cos_phi.data() + p * t, sin_phi.data() + p * t);
    const std::int64_t cells = in.n_pha * in.n_amp;
    const auto count = shifts.size();
    oneapi::tbb::parallel_for(std::int64_t{0}, in.n_amp, [&](std::int64_t a) {
      std::vector<double> cos_psi(tn), sin_psi(tn);
      std::vector<double> cc(count), ss(count), sc(count), cs(count);
      for (std::int64_t p = 0; p < in.n_pha; ++p) {
        cos_sin(in.envelope_phase + (p * in.n_amp + a) * t, t, cos_psi.data(), sin_psi.data());
        const double* c_phi = cos_phi.data() + p * t;
        const double* s_phi = sin_phi.data() + p * t;
        // e^{iφ} e^{−iψ} = (cos φ cos ψ + sin φ sin ψ) + i (sin φ cos ψ − cos φ sin ψ)
        shifted_dot(c_phi, cos_psi.data(), t, shifts, cc.data(), stop);
        shifted_dot(s_phi, sin_psi.data(), t, shifts, ss.data(), stop);
        shifted_dot(s_phi, cos_psi.data(), t, shifts, sc.data(), stop);
        shifted_dot(c_phi, sin_psi.data(), t, shifts, cs.data(), stop);
        for (std::size_t k = 0; k < count; ++k)
          out[static_cast<std::int64_t>(k) * cells + p * in.n_amp + a] = vector_length(cc[k] + ss[k], sc[k] - cs[k], t);
      }
    });
    // A body that saw the stop may have thrown into an already cancelled task group, which drops it.
    if (stop.stop_requested()) throw RunCancelled(-1);
  }
};

}  // namespace

namespace detail {
std::unique_ptr<Method> make_phase_locking_value() { return std::make_unique<PhaseLockingValueMethod>(); }
}  // namespace detail

}  // namespace pacflow::mi
