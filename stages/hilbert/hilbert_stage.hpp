#pragma once
// Stage `hilbert`: phase of the phase bands and amplitude of the amplitude bands (spec §4).
// Reads `filtered_pha`, `filtered_amp`; writes `phase` [n_pha][T] and `amplitude` [n_amp][T]. A padded
// stream (a source's pad=) is cropped here: T is the series length less the padding at each end.
#include <cstdint>
#include <memory>
#include <optional>

#include <oneapi/tbb/enumerable_thread_specific.h>

#include "engine/api/param_binding.hpp"
#include "stages/kernels/analytic/analytic_signal.hpp"

namespace pacflow::stages {

// What the stage planned for its stream: the one description its CPU code (hilbert_stage.cpp) and
// its GPU adapter (hilbert_cuda_kernel.cpp) both run from.
struct HilbertPlan {
  std::int64_t length = 0;  // of the filtered series, padding included
  std::int64_t first = 0;   // the window kept: samples [first, first + kept) (pad= crops)
  std::int64_t kept = 0;
  std::int64_t n_pha = 0;
  std::int64_t n_amp = 0;
  std::int64_t fft_length = 0;  // of the transform: length, or the next fast length (pad=fast)
};

class HilbertStage final : public Stage {
 public:
  void plan(PlanContext& ctx) override;
  void prepare() override;  // the FFT plans of the transform plan() sized
  void process(Batch& batch) override;
  // Two FFTs of the padded length per band, 5 N log2 N flops each: an estimate.
  double flops_per_series() const override;
  double host_workspace_bytes(int threads) const override;  // each thread's FFT buffers

  static ElementInfo info();
  static void declare(ParamBinder<HilbertStage>& p);
  void configured();  // reads outputs=
  const HilbertPlan& planned() const { return plan_; }  // once plan() returned

 private:
  enum class Pad { Fast, None };
  Pad pad_ = Pad::Fast;
  std::vector<std::string> outputs_;  // outputs= as read; unset: none
  bool phase_result_ = false;         // outputs=phase: `phase` is a result the sinks keep
  bool amplitude_result_ = false;     // outputs=amplitude
  HilbertPlan plan_;
  std::optional<hilbert::AnalyticSignal> transform_;
  std::unique_ptr<oneapi::tbb::enumerable_thread_specific<hilbert::AnalyticSignal::Workspace>> workspaces_;
};

}  // namespace pacflow::stages
