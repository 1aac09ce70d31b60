#pragma once
// Stage `waveform`: the shape of each phase band's rhythm in the signal, for the report's
// non-sinusoidality diagnostic (pipelines/report/waveform_shape.hpp). For each series and phase band
// p, the mean of the signal (as the band-pass filters saw it, without the context of a padded
// stream) over the samples whose phase (the hilbert stage's) falls in each of `bins` equal bins, as
// the modulation index bins it (spec §5): the rhythm's phase-locked waveform. A sinusoid gives cos(phase); a sharp or asymmetric
// rhythm puts power in its harmonics, which can make coupling of its own (Cole & Voytek 2017).
// Reads `signal` [T + 2 pad] and `phase` [n_pha][T]; writes `phase_waveform` [n_pha][bins] (NaN in a
// bin no sample fell in).
#include <cstdint>

#include "engine/api/param_binding.hpp"

namespace pacflow::stages {

class WaveformStage final : public Stage {
 public:
  void plan(PlanContext& ctx) override;
  void process(Batch& batch) override;
  double flops_per_series() const override;

  static ElementInfo info();
  static void declare(ParamBinder<WaveformStage>& p);

 private:
  std::int64_t bins_ = 36;
  std::int64_t n_pha_ = 0;
  std::int64_t length_ = 0;  // of the phase rows
  std::int64_t first_ = 0;   // the signal's sample at the phase rows' first (a padded stream's context)
  std::int64_t signal_length_ = 0;
};

}  // namespace pacflow::stages
