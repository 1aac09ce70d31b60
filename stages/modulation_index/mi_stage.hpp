#pragma once
// Stage `mi`: a PAC measure per series, or per (phase channel, amplitude channel) pair, and
// (phase band, amplitude band) cell: Tort's MI (spec §5) or the other measures of docs/methods.md.
// Reads `phase` [n_pha][T] and `amplitude` [n_amp][T] (plv also `envelope_phase`); writes the
// result `pac` [n_pha][n_amp] and, on request, `amplitude_distribution` [n_pha][n_amp][bins] and
// `preferred_phase` [n_pha][n_amp].
#include <cstdint>
#include <memory>
#include <optional>

#include "engine/api/param_binding.hpp"
#include "stages/kernels/pac/methods/method.hpp"
#include "stages/kernels/pac/pairs.hpp"

namespace pacflow::stages {

// What the stage was configured and planned to compute: the one description its CPU code
// (mi_stage.cpp) and its GPU adapter (mi_cuda_kernel.cpp) both run from.
struct MiPlan {
  mi::MethodSettings settings;
  bool distributions = false;    // outputs=distributions
  bool preferred_phase = false;  // outputs=preferred_phase
  std::int64_t length = 0;
  std::int64_t n_pha = 0;
  std::int64_t n_amp = 0;
  mi::PairPlan pairs;
};

class ModulationIndexStage final : public Stage {
 public:
  void plan(PlanContext& ctx) override;
  void process(Batch& batch) override;
  // One add per sample and cell (what a per-sample GPU kernel does) plus the bin evaluations.
  double flops_per_series() const override;
  double streamed_bytes_per_series() const override;

  static ElementInfo info();
  static void declare(ParamBinder<ModulationIndexStage>& p);
  // Reads outputs= into the flags below.
  void configured();
  const MiPlan& planned() const { return plan_; }  // once plan() returned

 private:

  void warn_of_a_short_window(PlanContext& ctx) const;
  // Amplitude distribution over the phase bins and preferred phase of one output row.
  void write_distributions(const mi::PairView& in, float* distribution, float* preferred) const;

  MiPlan plan_;
  mi::PairSpec pairs_spec_;  // pairs=
  std::vector<std::string> outputs_;  // outputs= as read; unset: none
  std::unique_ptr<const mi::Method> method_;
};

}  // namespace pacflow::stages
