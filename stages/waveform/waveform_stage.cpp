#include "stages/waveform/waveform_stage.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <numbers>
#include <oneapi/tbb/parallel_for.h>
#include <vector>

#include "engine/api/errors.hpp"
#include "stages/common/tensor_names.hpp"

namespace pacflow::stages {

void WaveformStage::declare(ParamBinder<WaveformStage>& p) {
  p.add(&WaveformStage::bins_, "bins", 36, "phase bins of the waveform, as the modulation index bins the phase (spec §5)")
      .range(8, 720);
}

ElementInfo WaveformStage::info() {
  return element_info<WaveformStage>(
      "waveform", "each phase band's phase-locked waveform (the signal's mean by phase bin): the report's "
                  "non-sinusoidality diagnostic");
}

void WaveformStage::plan(PlanContext& ctx) {
  const TensorDecl& signal = ctx.require(tensors::kSignal, "waveform");
  const TensorDecl& phase = ctx.require(tensors::kPhase, "waveform");
  n_pha_ = phase.per_series.at(0);
  length_ = phase.per_series.at(1);
  signal_length_ = signal.per_series.at(0);
  first_ = ctx.stream().pad;
  if (signal_length_ != length_ + 2 * first_)
    throw InputError(fmt::format("waveform: the signal has {} samples and the phases {} (padded by {}): they are not "
                                 "the same series; place waveform after hilbert",
                                 signal_length_, length_, first_));
  ctx.declare({tensors::kPhaseWaveform, {n_pha_, bins_}, DType::Float32, true,
               "mean of the signal over the samples of each phase bin, per phase band (NaN: an empty bin)"});
}

void WaveformStage::process(Batch& batch) {
  const float* signal = batch.at(tensors::kSignal).values<float>().data();
  const float* phase = batch.at(tensors::kPhase).values<float>().data();
  float* out = batch.emplace(tensors::kPhaseWaveform, {n_pha_, bins_}, DType::Float32).values<float>().data();
  const double per_radian = static_cast<double>(bins_) / (2 * std::numbers::pi);
  oneapi::tbb::parallel_for(std::int64_t{0}, batch.series_count * n_pha_, [&](std::int64_t task) {
    const std::int64_t series = task / n_pha_;
    const float* x = signal + series * signal_length_ + first_;
    const float* phi = phase + task * length_;
    std::vector<double> sum(static_cast<std::size_t>(bins_), 0.0);
    std::vector<std::int64_t> count(sum.size(), 0);
    for (std::int64_t t = 0; t < length_; ++t) {
      if (!std::isfinite(phi[t])) continue;
      // The modulation index's bins (spec §5): floor((phi + pi) · bins / (2 pi)), clamped.
      auto b = static_cast<std::int64_t>(std::floor((double{phi[t]} + std::numbers::pi) * per_radian));
      b = std::clamp<std::int64_t>(b, 0, bins_ - 1);
      sum[static_cast<std::size_t>(b)] += x[t];
      ++count[static_cast<std::size_t>(b)];
    }
    float* row = out + task * bins_;
    for (std::size_t b = 0; b < sum.size(); ++b)
      row[b] = count[b] ? static_cast<float>(sum[b] / static_cast<double>(count[b]))
                        : std::numeric_limits<float>::quiet_NaN();
  });
}

double WaveformStage::flops_per_series() const { return 4.0 * static_cast<double>(n_pha_ * length_); }

}  // namespace pacflow::stages
