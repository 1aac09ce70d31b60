#pragma once
// Stage `surrogates`: time-shift surrogate distribution of the modulation index and its
// statistics per cell (spec §6). Reads `phase`, `amplitude`; writes the results `pac_z`,
// `surrogate_mean`, `surrogate_std`, `pvalues`, `pvalues_maxstat`, each [n_pha][n_amp].
#include <vector>

#include "engine/registry.hpp"

namespace pacflow::stages {

class SurrogatesStage final : public Stage {
 public:
  explicit SurrogatesStage(const Params& params);
  void plan(PlanContext& ctx) override;
  void process(Batch& batch) override;
  // As mi, once per alignment (observed + n_perm).
  double flops_per_series() const override;

  static ElementInfo info();
  const std::vector<std::int64_t>& shifts() const { return shifts_; }

 private:
  void process_series(const float* phase, const float* amplitude, float* const outputs[5]) const;

  std::int64_t n_perm_ = 200;
  std::uint64_t seed_ = 42;
  bool timelag_ = false;  // shift the phase instead of the amplitude
  bool explicit_min_shift_ = false;
  Duration min_shift_;
  std::vector<std::int64_t> given_shifts_;
  std::vector<std::int64_t> shifts_;
  int bins_ = 18;
  std::int64_t length_ = 0;
  std::int64_t n_pha_ = 0;
  std::int64_t n_amp_ = 0;
};

}  // namespace pacflow::stages
