#pragma once
// Stage `erpac`: event-related PAC (Voytek et al. 2013), the circular-linear correlation across
// epochs between phase and amplitude at every time point, per channel (and segment) and band pair,
// with its p-values corrected per channel (TensorPAC's EventRelatedPac, method "circular").
// Reads `phase`, `amplitude`; writes the results `erpac` and `erpac_pvalues`, [C][n_pha][n_amp][T],
// and publishes the coordinate `erpac_times` (the time of each of the T samples; sinks write it).
//
// It reduces across epochs, and the series of one channel lie E·C apart in the stream ([E][C]
// order), so it asks for the whole input in one batch (PlanContext::require_batch_multiple): memory
// grows with the input, E·C·T·(n_pha + n_amp) floats for phase and amplitude.
#include <vector>

#include "engine/api/param_binding.hpp"
#include "stages/kernels/statistics/multiple_comparisons.hpp"

namespace pacflow::stages {

class ErpacStage final : public Stage {
 public:
  void plan(PlanContext& ctx) override;
  void process(Batch& batch) override;
  double flops_per_series() const override;
  // Per thread: one row's amplitude means and one phase band's sums over the epochs.
  double host_workspace_bytes(int threads) const override;

  static ElementInfo info();
  static void declare(ParamBinder<ErpacStage>& p);

 private:
  // The mean over epochs of each amplitude band of one output row, [n_amp][time].
  std::vector<double> amplitude_means(const float* amplitude, std::int64_t row, std::int64_t rows) const;
  // ρ and p of one output row (channel, segment) and phase band, every amplitude band and time;
  // `mean_x` is amplitude_means() of the row.
  void correlate(const float* phase, const float* amplitude, const double* mean_x, std::int64_t row, std::int64_t p,
                 std::int64_t rows, float* rho, double* pvalues) const;

  erpac::Correction correction_ = erpac::Correction::Fdr;
  std::int64_t epochs_ = 0;
  std::int64_t length_ = 0;
  std::int64_t n_pha_ = 0;
  std::int64_t n_amp_ = 0;
};

}  // namespace pacflow::stages
