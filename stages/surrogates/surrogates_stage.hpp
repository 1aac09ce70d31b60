#pragma once
// Stage `surrogates`: time-shift surrogate distribution of the modulation index and its
// statistics per cell (spec §6). Reads `phase`, `amplitude`; writes the results `pac_z`,
// `surrogate_mean`, `surrogate_std`, `pvalues`, `pvalues_maxstat`, each [n_pha][n_amp].
#include <vector>

#include "engine/registry.hpp"
#ifdef PACFLOW_HAVE_CUDA
#include <optional>

#include "stages/common/device_constants.hpp"
#endif

namespace pacflow::stages {

class SurrogatesStage final : public Stage {
 public:
  explicit SurrogatesStage(const Params& params);
  void plan(PlanContext& ctx) override;
  void process(Batch& batch) override;
  // As mi, once per alignment (observed + n_perm).
  double flops_per_series() const override;
#ifdef PACFLOW_HAVE_CUDA
  std::string why_not_on_gpu() const override;
  void process_cuda(Batch& batch, cuda::StageContext& ctx) override;
  double device_workspace_bytes(std::int64_t series) const override;
#endif

  static ElementInfo info();
  const std::vector<std::int64_t>& shifts() const { return shifts_; }

 private:
  void process_series(const float* phase, const float* amplitude, float* const outputs[5]) const;
  // Row 0 the observed alignment (shift 0), row k + 1 permutation k's shift of the amplitude.
  std::vector<std::int64_t> amplitude_shifts() const;

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
#ifdef PACFLOW_HAVE_CUDA
  std::optional<cuda::DeviceConstants<std::int64_t>> shifts_on_gpu_;
#endif
};

}  // namespace pacflow::stages
