#include "stages/hilbert/hilbert_stage.hpp"

#include <fmt/format.h>
#include <oneapi/tbb/parallel_for.h>

#include "engine/api/errors.hpp"
#include "stages/common/fast_length.hpp"
#include "stages/common/output_names.hpp"
#include "stages/common/phase_amplitude.hpp"
#include "stages/common/tensor_names.hpp"
#include "stages/hilbert/hilbert_facts.hpp"

namespace pacflow::stages {

void HilbertStage::declare(ParamBinder<HilbertStage>& p) {
  p.choice(&HilbertStage::pad_, "pad", {{"fast", Pad::Fast}, {"none", Pad::None}}, "fast",
           "FFT length: fast = smallest 2^a 3^b 5^c >= T (TensorPAC), none = T (gPAC)");
  p.parsed_optional(&HilbertStage::outputs_, "outputs", outputs_parser({tensors::kPhase, tensors::kAmplitude}),
                    "also keep as results: phase ([n_pha][T], radians), amplitude ([n_amp][T]); as TensorPAC's "
                    "Pac.filter");
}

void HilbertStage::configured() {
  phase_result_ = asks_for(outputs_, tensors::kPhase);
  amplitude_result_ = asks_for(outputs_, tensors::kAmplitude);
}

ElementInfo HilbertStage::info() {
  return element_info<HilbertStage>(
      "hilbert", "analytic signal by FFT: phase of phase bands, amplitude of amplitude bands (spec §4)");
}

void HilbertStage::plan(PlanContext& ctx) {
  const TensorDecl& pha = ctx.require(tensors::kFilteredPha, "hilbert");
  const TensorDecl& amp = ctx.require(tensors::kFilteredAmp, "hilbert");
  plan_.n_pha = pha.per_series.at(0);
  plan_.n_amp = amp.per_series.at(0);
  plan_.length = pha.per_series.at(1);
  // A padded stream (a source's pad=) is cropped here: the filters and the transform saw the
  // context on each side, the later stages see only the window between.
  plan_.first = ctx.stream().pad;
  plan_.kept = plan_.length - 2 * plan_.first;
  if (plan_.kept < 2)
    throw InputError(fmt::format("series of {} samples padded by {} on each side leave {} to analyse", plan_.length,
                                 plan_.first, plan_.kept));
  const std::int64_t n = pad_ == Pad::Fast ? next_fast_length(plan_.length) : plan_.length;
  plan_.fft_length = n;
  transform_.reset();
  declare_phase_amplitude(ctx, plan_.n_pha, plan_.n_amp, plan_.kept, phase_result_, amplitude_result_);
  ctx.resolved()["fft_length"] = n;
  if (plan_.first > 0) ctx.resolved()["cropped"] = {{"first_sample", plan_.first}, {"samples", plan_.kept}};
  ctx.publish(kHilbertFftLength, n);  // envelope_phase uses the same transform
}

void HilbertStage::prepare() {
  if (transform_) return;
  transform_.emplace(plan_.length, plan_.fft_length);
  const auto* transform = &*transform_;
  workspaces_ = std::make_unique<oneapi::tbb::enumerable_thread_specific<hilbert::AnalyticSignal::Workspace>>(
      [transform] { return transform->make_workspace(); });
}

void HilbertStage::process(Batch& batch) {
  const float* pha_in = batch.at(tensors::kFilteredPha).values<float>().data();
  const float* amp_in = batch.at(tensors::kFilteredAmp).values<float>().data();
  float* phase = batch.emplace(tensors::kPhase, {plan_.n_pha, plan_.kept}, DType::Float32).values<float>().data();
  float* amplitude =
      batch.emplace(tensors::kAmplitude, {plan_.n_amp, plan_.kept}, DType::Float32).values<float>().data();
  const auto t = static_cast<std::size_t>(plan_.length), kept = static_cast<std::size_t>(plan_.kept);
  const std::int64_t rows_pha = batch.series_count * plan_.n_pha;
  const std::int64_t rows = rows_pha + batch.series_count * plan_.n_amp;
  // One task per (series, band) row: phase rows first, then amplitude rows.
  oneapi::tbb::parallel_for(std::int64_t{0}, rows, [&](std::int64_t r) {
    auto& ws = workspaces_->local();
    const bool is_phase = r < rows_pha;
    const auto row = static_cast<std::size_t>(is_phase ? r : r - rows_pha);
    transform_->apply({(is_phase ? pha_in : amp_in) + row * t, t},
                      is_phase ? hilbert::Output::Phase : hilbert::Output::Amplitude, ws,
                      (is_phase ? phase : amplitude) + row * kept, plan_.first, plan_.kept);
  });
}

double HilbertStage::host_workspace_bytes(int threads) const {
  return threads * hilbert::AnalyticSignal::workspace_bytes_for(plan_.fft_length);
}

double HilbertStage::flops_per_series() const {
  const auto n = static_cast<double>(plan_.fft_length);
  return static_cast<double>(plan_.n_pha + plan_.n_amp) * 2.0 * 5.0 * n * std::log2(std::max(n, 2.0));
}

}  // namespace pacflow::stages
