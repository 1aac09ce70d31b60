#include "stages/wavelet/wavelet_stage.hpp"

#include <cmath>
#include <fmt/format.h>
#include <oneapi/tbb/parallel_for.h>

#include "engine/api/errors.hpp"
#include "stages/bandpass/bandpass_facts.hpp"
#include "stages/common/output_names.hpp"
#include "stages/common/phase_amplitude.hpp"
#include "stages/common/tensor_names.hpp"

namespace pacflow::stages {

void WaveletStage::declare(ParamBinder<WaveletStage>& p) {
  p.parsed(&WaveletStage::pha_spec_, "pha", "2:20:10", bands::parser(bands::Role::Phase),
           "phase bands, as bandpass's (lo:hi:n, start:stop:width:step, a preset or [[lo,hi],...]): one wavelet "
           "at each band's centre, (lo + hi) / 2")
      .unit("Hz");
  p.parsed(&WaveletStage::amp_spec_, "amp", "60:160:10", bands::parser(bands::Role::Amplitude),
           "amplitude bands, same forms")
      .unit("Hz");
  p.add(&WaveletStage::width_, "width", 7.0, "the wavelets' width in cycles (TensorPAC's width=)")
      .unit("cycles")
      .greater_than(0)
      .at_most(1000);
  p.parsed_optional(&WaveletStage::outputs_, "outputs", outputs_parser({tensors::kPhase, tensors::kAmplitude}),
                    "also keep as results: phase ([n_pha][T], radians), amplitude ([n_amp][T]); as TensorPAC's "
                    "Pac.filter");
}

void WaveletStage::configured() {
  phase_result_ = asks_for(outputs_, tensors::kPhase);
  amplitude_result_ = asks_for(outputs_, tensors::kAmplitude);
}

ElementInfo WaveletStage::info() {
  return element_info<WaveletStage>(
      "wavelet", "phase and amplitude by complex Morlet wavelets (TensorPAC's dcomplex=\"wavelet\"), in place of "
                 "bandpass and hilbert");
}

std::vector<morlet::Wavelet> WaveletStage::wavelets(const std::string& param, const std::vector<bands::Band>& list,
                                                    double fs) const {
  std::vector<morlet::Wavelet> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const double centre = (list[i].lo + list[i].hi) / 2;
    if (!(centre > 0 && centre < fs / 2))
      throw ParamError(param, fmt::format("band {} [{:g}, {:g}] Hz: its centre, {:g} Hz, must be above 0 and below "
                                          "Nyquist (fs/2 = {:g} Hz)",
                                          i, list[i].lo, list[i].hi, centre, fs / 2));
    out.push_back(morlet::wavelet(fs, centre, width_));
  }
  return out;
}

void WaveletStage::plan(PlanContext& ctx) {
  const StreamInfo& stream = ctx.stream();
  ctx.require(stream.tensor, "wavelet");
  plan_.input = stream.tensor;
  plan_.length = stream.series_length;
  plan_.first = stream.pad;
  plan_.kept = plan_.length - 2 * plan_.first;
  if (plan_.kept < 2)
    throw InputError(fmt::format("series of {} samples padded by {} on each side leave {} to analyse", plan_.length,
                                 plan_.first, plan_.kept));
  plan_.pha = wavelets("pha", pha_spec_.bands, stream.sample_rate);
  plan_.amp = wavelets("amp", amp_spec_.bands, stream.sample_rate);
  const auto n_pha = static_cast<std::int64_t>(plan_.pha.size());
  const auto n_amp = static_cast<std::int64_t>(plan_.amp.size());
  declare_phase_amplitude(ctx, n_pha, n_amp, plan_.kept, phase_result_, amplitude_result_);
  publish_bands(ctx, pha_spec_.bands, amp_spec_.bands);
  json taps = json::object();
  for (const auto* list : {&plan_.pha, &plan_.amp}) {
    json& counts = taps[list == &plan_.pha ? "pha" : "amp"] = json::array();
    for (const morlet::Wavelet& w : *list) counts.push_back(w.taps());
  }
  ctx.resolved()["wavelet_taps"] = taps;
  if (plan_.first > 0) ctx.resolved()["cropped"] = {{"first_sample", plan_.first}, {"samples", plan_.kept}};
  for (const auto* list : {&plan_.pha, &plan_.amp})
    for (const morlet::Wavelet& w : *list)
      if (w.taps() > plan_.length) {
        ctx.warn(fmt::format("wavelet: a {}-tap wavelet is longer than the series ({} samples): every output sample "
                             "sees the series' ends (TensorPAC computes the same)",
                             w.taps(), plan_.length));
        break;
      }
}

void WaveletStage::process(Batch& batch) {
  const float* x = batch.at(plan_.input).values<float>().data();
  const auto n_pha = static_cast<std::int64_t>(plan_.pha.size());
  const auto n_amp = static_cast<std::int64_t>(plan_.amp.size());
  float* phase = batch.emplace(tensors::kPhase, {n_pha, plan_.kept}, DType::Float32).values<float>().data();
  float* amplitude = batch.emplace(tensors::kAmplitude, {n_amp, plan_.kept}, DType::Float32).values<float>().data();
  const std::int64_t rows_pha = batch.series_count * n_pha;
  const std::int64_t rows = rows_pha + batch.series_count * n_amp;
  // One task per (series, band) row: phase rows first, then amplitude rows.
  oneapi::tbb::parallel_for(std::int64_t{0}, rows, [&](std::int64_t r) {
    const bool is_phase = r < rows_pha;
    const std::int64_t row = is_phase ? r : r - rows_pha;
    const std::int64_t bands = is_phase ? n_pha : n_amp;
    const morlet::Wavelet& w = (is_phase ? plan_.pha : plan_.amp)[static_cast<std::size_t>(row % bands)];
    const float* series = x + (row / bands) * plan_.length;
    float* out = (is_phase ? phase : amplitude) + row * plan_.kept;
    for (std::int64_t n = 0; n < plan_.kept; ++n) {
      double re = 0, im = 0;
      morlet::morlet_sample(series, plan_.length, w.re.data(), w.im.data(), w.taps(), w.offset(), plan_.first + n, re, im);
      out[n] = static_cast<float>(is_phase ? std::atan2(im, re) : std::hypot(re, im));
    }
  });
}

double WaveletStage::flops_per_series() const {
  double taps = 0;
  for (const auto* list : {&plan_.pha, &plan_.amp})
    for (const morlet::Wavelet& w : *list) taps += static_cast<double>(w.taps());
  return 4.0 * taps * static_cast<double>(plan_.kept);
}

}  // namespace pacflow::stages
