// The measures of the amplitude distribution over phase bins: Tort's MI (the run-based kernel of
// shifted_mi.hpp) and the heights ratio.
#include <oneapi/tbb/parallel_for.h>
#include <vector>

#include "engine/api/errors.hpp"
#include "stages/kernels/pac/methods/method.hpp"
#include "stages/kernels/pac/methods/pac_math.hpp"
#include "stages/kernels/pac/methods/shifted_sums.hpp"
#include "stages/kernels/pac/shifted_mi.hpp"

namespace pacflow::mi {

namespace {

class TortMethod final : public Method {
 public:
  explicit TortMethod(int bins) : bins_(bins) {}
  void evaluate(const PairView& in, std::span<const std::int64_t> shifts, double* out,
                const std::stop_token& stop) const override {
    shifted_modulation_index({in.phase, in.amplitude, in.n_pha, in.n_amp, in.length}, bins_, shifts, out, stop);
  }
  void evaluate_many(std::span<const PairView> phases, std::span<const AmplitudeJob> jobs,
                     const std::stop_token& stop) const override {
    std::vector<SeriesBands> series;
    series.reserve(phases.size());
    for (const PairView& p : phases) series.push_back({p.phase, nullptr, p.n_pha, p.n_amp, p.length});
    std::vector<ShiftedAmplitude> amplitudes;
    amplitudes.reserve(jobs.size());
    for (const AmplitudeJob& job : jobs) amplitudes.push_back({job.amplitude, job.shifts, job.out, job.phase});
    shifted_modulation_indices(series, bins_, amplitudes, stop);
  }

 private:
  int bins_;
};

// (max − min) / max of the bin means: per-bin sums from runs of equal bin and prefix sums.
class HeightsRatioMethod final : public Method {
 public:
  explicit HeightsRatioMethod(int bins) : bins_(bins) {}
  void evaluate(const PairView& in, std::span<const std::int64_t> shifts, double* out,
                const std::stop_token& stop) const override {
    const PhaseRuns runs(in.phase, in.n_pha, in.length, bins_);
    const std::int64_t cells = in.n_pha * in.n_amp;
    oneapi::tbb::parallel_for(std::int64_t{0}, in.n_amp, [&](std::int64_t a) {
      const std::vector<double> prefix = wrapped_prefix(in.amplitude + a * in.length, in.length);
      std::vector<double> sums(static_cast<std::size_t>(bins_));
      for (std::size_t k = 0; k < shifts.size(); ++k) {
        if (stop.stop_requested()) throw RunCancelled(-1);
        for (std::int64_t p = 0; p < in.n_pha; ++p) {
          runs.bin_sums(p, prefix.data(), shifts[k], sums.data());
          out[static_cast<std::int64_t>(k) * cells + p * in.n_amp + a] = heights_ratio(sums.data(), runs.counts(p), bins_);
        }
      }
    });
    // A body that saw the stop may have thrown into an already cancelled task group, which drops it.
    if (stop.stop_requested()) throw RunCancelled(-1);
  }

 private:
  int bins_;
};

}  // namespace

namespace detail {
std::unique_ptr<Method> make_tort(int bins) { return std::make_unique<TortMethod>(bins); }
std::unique_ptr<Method> make_heights_ratio(int bins) { return std::make_unique<HeightsRatioMethod>(bins); }
}  // namespace detail

}  // namespace pacflow::mi
