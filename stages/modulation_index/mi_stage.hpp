#pragma once
// Stage `mi`: Tort's modulation index per series and (phase band, amplitude band) cell (spec §5).
// Reads `phase` [n_pha][T] and `amplitude` [n_amp][T]; writes the result `pac` [n_pha][n_amp].
#include <optional>

#include "engine/registry.hpp"
#ifdef PACFLOW_HAVE_CUDA
#include "stages/common/device_constants.hpp"
#endif

namespace pacflow::stages {

class ModulationIndexStage final : public Stage {
 public:
  explicit ModulationIndexStage(const Params& params);
  void plan(PlanContext& ctx) override;
  void process(Batch& batch) override;
  // One add per sample and cell (what a per-sample GPU kernel does) plus the bin evaluations.
  double flops_per_series() const override;
#ifdef PACFLOW_HAVE_CUDA
  std::string why_not_on_gpu() const override;
  void process_cuda(Batch& batch, cuda::StageContext& ctx) override;
  double device_workspace_bytes(std::int64_t series) const override;
#endif

  static ElementInfo info();

 private:
  int bins_ = 18;
  std::int64_t length_ = 0;
  std::int64_t n_pha_ = 0;
  std::int64_t n_amp_ = 0;
#ifdef PACFLOW_HAVE_CUDA
  cuda::DeviceConstants<std::int64_t> observed_shift_{std::vector<std::int64_t>{0}};
#endif
};

}  // namespace pacflow::stages
