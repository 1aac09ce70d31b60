#pragma once
// Stage `mi`: Tort's modulation index per series and (phase band, amplitude band) cell (spec §5).
// Reads `phase` [n_pha][T] and `amplitude` [n_amp][T]; writes the result `pac` [n_pha][n_amp].
#include "engine/registry.hpp"

namespace pacflow::stages {

class ModulationIndexStage final : public Stage {
 public:
  explicit ModulationIndexStage(const Params& params);
  void plan(PlanContext& ctx) override;
  void process(Batch& batch) override;
  // One add per sample and cell (what a per-sample GPU kernel does) plus the bin evaluations.
  double flops_per_series() const override;

  static ElementInfo info();

 private:
  int bins_ = 18;
  std::int64_t length_ = 0;
  std::int64_t n_pha_ = 0;
  std::int64_t n_amp_ = 0;
};

}  // namespace pacflow::stages
