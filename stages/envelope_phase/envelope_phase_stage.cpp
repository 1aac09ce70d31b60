#include "stages/envelope_phase/envelope_phase_stage.hpp"

#include <algorithm>
#include <cmath>
#include <oneapi/tbb/parallel_for.h>
#include <stdexcept>

#include "engine/api/errors.hpp"
#include "stages/bandpass/bandpass_facts.hpp"
#include "stages/common/tensor_names.hpp"
#include "stages/hilbert/hilbert_facts.hpp"
#include "stages/kernels/filters/fir1.hpp"

namespace pacflow::stages {

void EnvelopePhaseStage::declare(ParamBinder<EnvelopePhaseStage>& /*p*/) {}  // no parameters

ElementInfo EnvelopePhaseStage::info() {
  return element_info<EnvelopePhaseStage>(
      "envelope_phase", "phase of each amplitude envelope filtered in each phase band (for mi method=plv)");
}

void EnvelopePhaseStage::plan(PlanContext& ctx) {
  const TensorDecl& amplitude = ctx.require(tensors::kAmplitude, "envelope_phase");
  const BandEdges* bands = ctx.find(kPhaseBands);
  const std::vector<std::int64_t>* orders = ctx.find(kPhaseFilterOrders);
  const std::int64_t* fft_length = ctx.find(kHilbertFftLength);
  if (!bands || !orders || !fft_length)
    throw InputError("envelope_phase filters the amplitude with the phase bands' filters: it needs bandpass and hilbert before it");
  n_amp_ = amplitude.per_series.at(0);
  length_ = amplitude.per_series.at(1);
  bands_ = *bands;
  orders_ = *orders;
  if (orders_.size() != bands_.size() || orders_.empty())
    throw std::logic_error("envelope_phase: a filter order per phase band, and at least one band");
  n_pha_ = static_cast<std::int64_t>(bands_.size());
  sample_rate_ = ctx.stream().sample_rate;
  filter_fft_length_ = fir::FiltFiltBank::fft_size_for(length_, *std::max_element(orders_.begin(), orders_.end()));
  fft_length_ = *fft_length;
  filters_.reset();
  transform_.reset();
  ctx.declare({tensors::kEnvelopePhase, {n_pha_, n_amp_, length_}, DType::Float32, false,
               "phase of amplitude band a's envelope filtered in phase band p, in (-pi, pi]"});
}

void EnvelopePhaseStage::prepare() {
  if (filters_) return;
  filters_.emplace(orders_, length_, [this](std::size_t p) {
    return fir::fir1_bandpass(orders_[p], bands_[p][0], bands_[p][1], sample_rate_);
  });
  transform_.emplace(length_, fft_length_);
  const auto* filters = &*filters_;
  const auto* transform = &*transform_;
  workspaces_ = std::make_unique<oneapi::tbb::enumerable_thread_specific<Workspace>>(
      [filters, transform] { return Workspace{filters->make_workspace(), transform->make_workspace()}; });
}

double EnvelopePhaseStage::host_workspace_bytes(int threads) const {
  return fir::FiltFiltBank::spectra_bytes(bands_.size(), filter_fft_length_) +
         threads * (fir::FiltFiltBank::workspace_bytes_for(filter_fft_length_) +
                    hilbert::AnalyticSignal::workspace_bytes_for(fft_length_));
}

void EnvelopePhaseStage::process(Batch& batch) {
  const float* amplitude = batch.at(tensors::kAmplitude).values<float>().data();
  float* out =
      batch.emplace(tensors::kEnvelopePhase, {n_pha_, n_amp_, length_}, DType::Float32).values<float>().data();
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
  const auto n = static_cast<double>(fft_length_);
  const double m = 2.0 * static_cast<double>(length_);
  return static_cast<double>(n_amp_) * (2.0 * 5.0 * m * std::log2(std::max(m, 2.0)) +
                                       static_cast<double>(n_pha_) * 2.0 * 5.0 * (m + n) * std::log2(std::max(n, 2.0)));
}

}  // namespace pacflow::stages
