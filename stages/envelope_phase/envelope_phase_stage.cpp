#include "stages/envelope_phase/envelope_phase_stage.hpp"

#include <cmath>
#include <oneapi/tbb/parallel_for.h>

#include "engine/errors.hpp"
#include "stages/bandpass/fir1.hpp"

namespace pacflow::stages {

ElementInfo EnvelopePhaseStage::info() {
  ElementInfo info;
  info.kind = ElementKind::Stage;
  info.name = "envelope_phase";
  info.summary = "phase of each amplitude envelope filtered in each phase band (for mi method=plv)";
  info.params = {};
  info.make_stage = [](const Params& p) { return std::make_unique<EnvelopePhaseStage>(p); };
  return info;
}

EnvelopePhaseStage::EnvelopePhaseStage(const Params& /*params*/) {}

void EnvelopePhaseStage::plan(PlanContext& ctx) {
  const TensorDecl& amplitude = ctx.require("amplitude", "envelope_phase");
  const json& attrs = ctx.attributes();
  if (!attrs.contains("pha_bands_hz") || !attrs.contains("pha_filter_orders") || !attrs.contains("hilbert_fft_length"))
    throw InputError("envelope_phase filters the amplitude with the phase bands' filters: it needs bandpass and hilbert before it");
  n_amp_ = amplitude.per_series.at(0);
  length_ = amplitude.per_series.at(1);
  const auto bands = attrs["pha_bands_hz"];
  const auto orders = attrs["pha_filter_orders"].get<std::vector<std::int64_t>>();
  n_pha_ = static_cast<std::int64_t>(bands.size());
  std::vector<std::vector<double>> coefficients;
  for (std::size_t p = 0; p < bands.size(); ++p)
    coefficients.push_back(fir::fir1_bandpass(orders.at(p), bands[p][0].get<double>(), bands[p][1].get<double>(),
                                              ctx.stream().sample_rate));
  filters_.emplace(coefficients, length_);
  transform_.emplace(length_, attrs["hilbert_fft_length"].get<std::int64_t>());
  const auto* filters = &*filters_;
  const auto* transform = &*transform_;
  workspaces_ = std::make_unique<oneapi::tbb::enumerable_thread_specific<Workspace>>(
      [filters, transform] { return Workspace{filters->make_workspace(), transform->make_workspace()}; });
  ctx.declare({"envelope_phase", {n_pha_, n_amp_, length_}, DType::Float32, false,
               "phase of amplitude band a's envelope filtered in phase band p, in (-pi, pi]"});
}

void EnvelopePhaseStage::process(Batch& batch) {
  const float* amplitude = batch.at("amplitude").values<float>().data();
  float* out = batch.emplace("envelope_phase", {n_pha_, n_amp_, length_}, DType::Float32).values<float>().data();
  const std::int64_t t = length_;
  // One task per (series, amplitude band): filter into every phase band ([p][a][T] of the series,
  // phase bands n_amp·T apart), then each band's phase in place.
  oneapi::tbb::parallel_for(std::int64_t{0}, batch.series_count * n_amp_, [&](std::int64_t task) {
    const std::int64_t series = task / n_amp_, a = task % n_amp_;
    auto& ws = workspaces_->local();
    float* base = out + series * n_pha_ * n_amp_ * t + a * t;
    filters_->apply({amplitude + task * t, static_cast<std::size_t>(t)}, ws.filter, base,
                    static_cast<std::size_t>(n_amp_ * t));
    for (std::int64_t p = 0; p < n_pha_; ++p) {
      float* band = base + p * n_amp_ * t;
      transform_->apply({band, static_cast<std::size_t>(t)}, hilbert::Output::Phase, ws.transform, band);
    }
  });
}

double EnvelopePhaseStage::flops_per_series() const {
  const double n = static_cast<double>(transform_ ? transform_->fft_length() : length_);
  const double m = 2.0 * static_cast<double>(length_);
  return static_cast<double>(n_amp_) * (2.0 * 5.0 * m * std::log2(std::max(m, 2.0)) +
                                       static_cast<double>(n_pha_) * 2.0 * 5.0 * (m + n) * std::log2(std::max(n, 2.0)));
}

}  // namespace pacflow::stages
