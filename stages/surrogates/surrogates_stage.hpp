#pragma once
// Stage `surrogates`: the surrogate distribution of the mi stage's measure (same method, bins and
// channel pairs) and its statistics per cell (spec §6). Surrogates shift the amplitude
// (timeshift), shift the phase (timelag) or pair each epoch's phase with another epoch's amplitude
// (swap_trials). Reads `phase`, `amplitude` (plv also `envelope_phase`); writes the results
// `pac_z`, `surrogate_mean`, `surrogate_std`, `pvalues`, `pvalues_maxstat` and, for norm other
// than z, `pac_norm`, each [n_pha][n_amp] per mi output row; with several epochs, also the
// trial-level test of each channel's mean over epochs (trials=, trial_statistics.hpp).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/api/param_binding.hpp"
#include "stages/kernels/pac/methods/method.hpp"
#include "stages/kernels/pac/pairs.hpp"
#include "stages/kernels/surrogates/surrogate_math.hpp"
#include "stages/kernels/surrogates/trial_statistics.hpp"

namespace pacflow::stages {

// outputs=values: every surrogate's measure, [n][n_pha][n_amp] per row.
inline constexpr const char* kSurrogateValues = "surrogate_values";

enum class SurrogateKind { Timeshift, Timelag, SwapTrials };

// What the stage was configured and planned to compute: the one description its CPU code
// (surrogates_stage.cpp) and its GPU adapter (surrogates_cuda_kernel.cpp) both run from.
class UnitJobs;  // surrogates_stage.cpp: the evaluations of rows evaluated together

struct SurrogatesPlan {
  SurrogateKind kind = SurrogateKind::Timeshift;
  surrogates::Norm norm = surrogates::Norm::Z;
  std::int64_t n_perm = 200;
  bool keep_values = false;  // outputs=values: surrogate_values
  mi::MethodSettings settings;
  bool envelope = false;  // the measure reads envelope_phase (plv)
  std::int64_t length = 0;
  std::int64_t n_pha = 0;
  std::int64_t n_amp = 0;
  mi::PairPlan pairs;
  std::vector<std::string> outputs;  // the statistics written, in their order
  std::vector<std::int64_t> alignment_shifts;  // of the amplitude: 0 (observed), then each surrogate's
  double values_limit_bytes = 16.0 * (1 << 20);  // row_memory: a thread's measures held at a time
  surrogates::TrialLayout trials;  // trials.test None: no trial-level statistics
  std::int64_t series_per_epoch = 0;
};

class SurrogatesStage final : public Stage {
 public:
  void plan(PlanContext& ctx) override;
  void process(Batch& batch) override;
  // As mi, once per alignment (observed + n_perm).
  double flops_per_series() const override;
  double streamed_bytes_per_series() const override;
  // Each thread's values of the rows it evaluates, a chunk of alignments at a time (row_memory).
  double host_workspace_bytes(int threads) const override;
  // The trial-level statistics, unless trials=none (or auto with fewer than two epochs).
  std::unique_ptr<RunSummary> make_summary() const override;
  // Its sums (each row into every permutation's) and its family tests (a few passes over the sums).
  SummaryWork summary_work() const override;

  static ElementInfo info();
  static void declare(ParamBinder<SurrogatesStage>& p);
  // The checks that involve several parameters (n, shifts, min_shift, method), once they are set.
  void configured();
  const std::vector<std::int64_t>& shifts() const { return shifts_; }
  const SurrogatesPlan& planned() const { return plan_; }  // once plan() returned

 private:
  using Kind = SurrogateKind;
  void plan_shifts(PlanContext& ctx);
  std::int64_t min_shift_samples(const PlanContext& ctx) const;
  void warn_of_small_shifts(PlanContext& ctx, std::int64_t min_shift) const;
  void plan_swaps(PlanContext& ctx);
  void plan_trials(PlanContext& ctx);
  // The measure of each output row of `rows` (of a batch whose first row is first_row) for
  // alignments [first, first + count) (0 the observed, k + 1 surrogate k), values [rows][count][cells],
  // and, unless `pairings` (the batch's [row][block][cells]) is null, the trial-level test's pairings
  // of those rows: every evaluation in one call of the method, which bins each phase once and builds
  // each amplitude's sums once. swap_trials evaluates each row's distinct pairings into by_epoch[i]
  // on the first call and copies them after. Throws RunCancelled soon after `stop` is requested.
  void evaluate_rows(const mi::BatchInputs& in, std::int64_t first_row, std::span<const std::int64_t> rows,
                     std::int64_t series, std::int64_t first, std::int64_t count, double* values,
                     std::vector<std::vector<double>>& by_epoch, double* pairings, const std::stop_token& stop) const;
  // The alignments evaluated at a time for `rows` rows together: all n + 1 when their values fit
  // row_memory, else as many as do (at least one).
  std::int64_t alignments_per_chunk(std::size_t rows) const;
  // A row's own alignments (swap_trials: each distinct epoch's amplitude, into by_epoch), then
  // swap_trials' copies of them into the row's values.
  void add_own_jobs(std::int64_t row, std::int64_t series, std::int64_t first, std::int64_t count, double* values,
                    UnitJobs& jobs, std::vector<double>& by_epoch) const;
  void copy_swapped(std::int64_t row, std::int64_t series, const std::vector<double>& by_epoch, std::int64_t first,
                    std::int64_t count, double* values) const;
  // swap_trials: the epoch whose amplitude permutation k pairs with epoch `epoch`.
  std::int64_t permuted(std::int64_t k, std::int64_t epoch) const {
    return permutations_[static_cast<std::size_t>(k * epochs_ + epoch)];
  }
  // Whether a channel's block of rows is evaluated together (the trial-level test on, and the
  // block's values within trial_memory per thread); else each row alone, the same bits.
  bool block_together() const;
  void state_resolution(PlanContext& ctx) const;
  double trial_orderings(double cap) const;

  SurrogatesPlan plan_;
  std::uint64_t seed_ = 42;
  std::optional<Duration> min_shift_;  // empty: one period of the lowest phase band
  std::optional<std::vector<double>> shifts_param_;  // shifts= as given
  std::vector<std::int64_t> given_shifts_;
  std::vector<std::int64_t> shifts_;        // timeshift / timelag
  std::vector<std::int64_t> permutations_;  // swap_trials: [k][epoch]
  std::int64_t epochs_ = 1;
  std::int64_t bins_ = 18;
  std::unique_ptr<const mi::Method> method_;
  std::vector<std::string> outputs_;  // outputs= as read; unset: none
  std::optional<surrogates::TrialTest> given_trials_;  // empty: trials=auto
  std::int64_t trial_block_ = 8;
  std::int64_t trial_memory_mib_ = 256;  // TrialLayout::state_limit_bytes, in MiB
  std::int64_t row_memory_mib_ = 16;     // SurrogatesPlan::values_limit_bytes, in MiB
  bool refuse_gain_confound_ = true;  // swap_trials with mvl
};

}  // namespace pacflow::stages
