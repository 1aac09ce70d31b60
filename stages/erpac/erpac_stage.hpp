#pragma once
// Stage `erpac`: event-related PAC (Voytek et al. 2013), the circular-linear correlation across
// epochs between phase and amplitude at every time point, per channel (and segment) and band pair,
// with its p-values corrected per channel (TensorPAC's EventRelatedPac, method "circular"); or with
// method=gc the Gaussian-copula mutual information across epochs (erpac_gc.hpp), its p-values max-T
// over the channel's cells against n= epoch permutations.
// Reads `phase`, `amplitude`; writes the results `erpac` and `erpac_pvalues`, [C][n_pha][n_amp][T],
// and publishes the coordinate `erpac_times` (the time of each of the T samples; sinks write it).
// With n= permutations it also writes `erpac_rank_z`: each cell's correlation ranked among those of
// n permutations of the epochs' amplitudes against their phases, as a normal quantile
// (stages/kernels/statistics/rank_z.hpp), the value a dataset's group test takes per subject.
//
// It reduces across epochs, and the series of one channel lie E·C apart in the stream ([E][C]
// order), so it asks for the whole input in one batch (PlanContext::require_batch_multiple): memory
// grows with the input, E·C·T·(n_pha + n_amp) floats for phase and amplitude.
#include <optional>
#include <vector>

#include "engine/api/param_binding.hpp"
#include "stages/erpac/erpac_gc.hpp"
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
  void configured();  // smooth= only with method=gc

 private:
  // The mean over epochs of each amplitude band of one output row, [n_amp][time].
  std::vector<double> amplitude_means(const float* amplitude, std::int64_t row, std::int64_t rows) const;
  // ρ and p of one output row (channel, segment) and phase band, every amplitude band and time;
  // `mean_x` is amplitude_means() of the row.
  void correlate(const float* phase, const float* amplitude, const double* mean_x, std::int64_t row, std::int64_t p,
                 std::int64_t rows, float* rho, double* pvalues, float* rank_z) const;
  // The centred amplitude of one band of one row, [epoch][time], into `dx`.
  void centred_amplitude(const float* amplitude, const double* mean_x, std::int64_t row, std::int64_t a,
                         std::int64_t rows, std::vector<double>& dx) const;
  // erpac_rank_z of one row, phase band and amplitude band at every time: `r` the observed
  // correlations, ds, dc, dx the centred sin, cos and amplitude [epoch][time], ss, cc, sc, xx their
  // sums of products.
  struct Centred {
    const double *ds, *dc, *dx, *ss, *cc, *sc, *xx;
  };
  void rank_against_permutations(const Centred& v, const double* r, float* rank_z) const;
  // method=gc: the information of every cell of every row, its rank among the permutations', and
  // the rows' max-T p-values.
  void process_gc(const float* phase, const float* amplitude, std::int64_t rows, float* information, float* pvalues,
                  float* rank_z) const;
  // One (phase band, amplitude band) cell of a row of process_gc, `cell` = p · n_amp + a: its
  // information at each time into information[cell][t], its rank_z; returns each permutation's
  // largest information over the cell's times.
  std::vector<double> gc_cell(const erpac::Normalised& phases, const erpac::Normalised& amplitudes, std::int64_t cell,
                              double* information, float* rank_z) const;

  enum class Method { Circular, GaussianCopula };
  Method method_ = Method::Circular;
  std::optional<std::int64_t> smooth_;  // method=gc: half the window of times pooled
  std::optional<erpac::GaussianCopulaErpac> gc_;  // planned for method=gc
  erpac::Correction correction_ = erpac::Correction::Fdr;
  std::int64_t permutations_ = 0;  // n=: 0, no erpac_rank_z
  std::int64_t seed_ = 42;
  std::vector<std::int64_t> permuted_;  // [permutation][epoch]: the epoch whose amplitude pairs with e's phase
  std::int64_t epochs_ = 0;
  std::int64_t length_ = 0;
  std::int64_t n_pha_ = 0;
  std::int64_t n_amp_ = 0;
};

}  // namespace pacflow::stages
