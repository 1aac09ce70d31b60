#pragma once
// Stage `envelope_phase`: the phase of each amplitude envelope in each phase band, the intermediate
// of the phase-locking value (mi method=plv, Penny et al. 2008). Each amplitude A_a is filtered with
// the phase band p's filter (the bandpass stage's fir1 bank, same orders) and its analytic signal's
// phase taken with the hilbert stage's transform. Reads `amplitude` [n_amp][T]; writes
// `envelope_phase` [n_pha][n_amp][T].
#include <memory>
#include <optional>

#include <oneapi/tbb/enumerable_thread_specific.h>

#include <array>
#include <vector>

#include "engine/api/param_binding.hpp"
#include "stages/kernels/analytic/analytic_signal.hpp"
#include "stages/kernels/filters/filtfilt_fft.hpp"

namespace pacflow::stages {

class EnvelopePhaseStage final : public Stage {
 public:
  void plan(PlanContext& ctx) override;
  void prepare() override;  // the phase bands' filter bank and the transform plan() sized
  void process(Batch& batch) override;
  // Per amplitude band, the phase-band filters and one analytic signal per phase band.
  double flops_per_series() const override;
  // The filter spectra, plus each thread's filter and transform buffers.
  double host_workspace_bytes(int threads) const override;

  static ElementInfo info();
  static void declare(ParamBinder<EnvelopePhaseStage>& p);

 private:
  struct Workspace {
    fir::FiltFiltBank::Workspace filter;
    hilbert::AnalyticSignal::Workspace transform;
  };
  std::int64_t length_ = 0;
  std::int64_t n_pha_ = 0;
  std::int64_t n_amp_ = 0;
  double sample_rate_ = 0;
  std::vector<std::array<double, 2>> bands_;  // phase bands [lo, hi] Hz
  std::vector<std::int64_t> orders_;         // their filter orders
  std::size_t filter_fft_length_ = 0;
  std::int64_t fft_length_ = 0;              // of the analytic signal
  std::optional<fir::FiltFiltBank> filters_;
  std::optional<hilbert::AnalyticSignal> transform_;
  std::unique_ptr<oneapi::tbb::enumerable_thread_specific<Workspace>> workspaces_;
};

}  // namespace pacflow::stages
