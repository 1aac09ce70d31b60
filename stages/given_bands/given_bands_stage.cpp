#include "stages/given_bands/given_bands_stage.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numbers>
#include <oneapi/tbb/parallel_for.h>

#include "engine/api/errors.hpp"
#include "stages/bandpass/bandpass_facts.hpp"
#include "stages/common/extremes.hpp"
#include "stages/common/phase_amplitude.hpp"
#include "stages/common/sample_range.hpp"
#include "stages/common/tensor_names.hpp"

namespace pacflow::stages {

void GivenBandsStage::declare(ParamBinder<GivenBandsStage>& p) {
  p.parsed(&GivenBandsStage::pha_spec_, "pha", json(), bands::parser(bands::Role::Phase),
           "the phase rows' bands: lo:hi:n, start:stop:width:step, a preset or [[lo,hi],...] (as bandpass); one row "
           "per band")
      .unit("Hz");
  p.parsed(&GivenBandsStage::amp_spec_, "amp", json(), bands::parser(bands::Role::Amplitude),
           "the amplitude rows' bands, same forms")
      .unit("Hz");
}

ElementInfo GivenBandsStage::info() {
  return element_info<GivenBandsStage>(
      "given_bands", "phases and amplitudes computed elsewhere, in place of bandpass and hilbert: each series holds "
                     "n_pha phase rows then n_amp amplitude rows");
}

void GivenBandsStage::plan(PlanContext& ctx) {
  const StreamInfo& stream = ctx.stream();
  const TensorDecl& signal = ctx.require(stream.tensor, "given_bands");
  input_ = stream.tensor;
  leading_dims_ = stream.leading_dims;
  leading_names_ = stream.leading_names;
  pha_ = pha_spec_.bands;  // as given: clamp= is bandpass's
  amp_ = amp_spec_.bands;
  bands::check_against_nyquist("pha", pha_, stream.sample_rate);
  bands::check_against_nyquist("amp", amp_, stream.sample_rate);
  const auto rows = static_cast<std::int64_t>(pha_.size() + amp_.size());
  const std::int64_t samples = signal.per_series.at(0);
  if (samples % rows != 0 || samples / rows < 2)
    throw InputError(fmt::format("given_bands: each series holds {} samples, not {} rows ({} phase, {} amplitude "
                                 "bands) of the same length",
                                 samples, rows, pha_.size(), amp_.size()));
  if (stream.pad > 0)
    throw ParamError("pad", "given_bands takes phases and amplitudes already cropped: the source's pad= is for "
                            "signals the bandpass stage filters");
  length_ = samples / rows;
  declare_phase_amplitude(ctx, static_cast<std::int64_t>(pha_.size()), static_cast<std::int64_t>(amp_.size()), length_,
                          false, false, ", as given");
  publish_bands(ctx, pha_, amp_);
  ctx.resolved()["samples_per_band"] = length_;
}

void GivenBandsStage::split(const float* series, float* phase, float* amplitude, std::int64_t s) const {
  constexpr double kPi = std::numbers::pi;
  const auto n_pha = static_cast<std::int64_t>(pha_.size()), n_amp = static_cast<std::int64_t>(amp_.size());
  // The usual series, checked in one pass of vectors and copied as is: every phase within (−π, π]
  // (compared in double, as split_checked compares), every amplitude row finite, non-negative and
  // reaching kSmallestPeak. Anything else goes through split_checked, which names what is wrong.
  const Extremes phases = extremes(series, n_pha * length_);
  bool usual = phases.finite && static_cast<double>(phases.lo) > -kPi && static_cast<double>(phases.hi) <= kPi;
  for (std::int64_t band = 0; band < n_amp && usual; ++band) {
    const Extremes row = extremes(series + (n_pha + band) * length_, length_);
    usual = row.finite && row.lo >= 0.0f && row.hi >= kSmallestPeak;
  }
  if (!usual) {
    split_checked(series, phase, amplitude, s);
    return;
  }
  std::copy_n(series, n_pha * length_, phase);
  std::copy_n(series + n_pha * length_, n_amp * length_, amplitude);
}

void GivenBandsStage::split_checked(const float* series, float* phase, float* amplitude, std::int64_t s) const {
  constexpr double kPi = std::numbers::pi;
  const auto n_pha = static_cast<std::int64_t>(pha_.size()), n_amp = static_cast<std::int64_t>(amp_.size());
  for (std::int64_t i = 0; i < n_pha * length_; ++i) {
    const double v = series[i];
    if (!(std::abs(v) <= 2 * kPi))
      throw InputError(fmt::format("given_bands: series {}, phase band {}, sample {}: {} is not a phase in radians "
                                   "within [-2 pi, 2 pi] (degrees? convert with np.deg2rad)",
                                   s, i / length_, i % length_, v));
    // Into (-pi, pi]: values already there are kept exactly.
    phase[i] = v > kPi ? static_cast<float>(v - 2 * kPi) : v <= -kPi ? static_cast<float>(v + 2 * kPi) : series[i];
  }
  const float* given = series + n_pha * length_;
  for (std::int64_t i = 0; i < n_amp * length_; ++i) {
    if (!(given[i] >= 0) || !std::isfinite(given[i]))
      throw InputError(fmt::format("given_bands: series {}, amplitude band {}, sample {}: {} is not an amplitude "
                                   "(finite, at least 0)",
                                   s, i / length_, i % length_, given[i]));
    amplitude[i] = given[i];
  }
  // An amplitude row without amplitude (all 0, or subnormal: TensorPAC hands over such rows for a
  // silent channel) has no distribution over the phase bins: refused, unless the whole series is a
  // stand-in of zeros.
  for (std::int64_t band = 0; band < n_amp; ++band) {
    const float peak = peak_magnitude(given + band * length_, length_);
    if (peak >= kSmallestPeak) continue;
    if (peak_magnitude(series, (n_pha + n_amp) * length_) == 0) return;
    const bands::Band& b = amp_[static_cast<std::size_t>(band)];
    throw InputError(fmt::format("given_bands: series {} ({}), amplitude band {} ([{:g}, {:g}] Hz): {}, so there is no "
                                 "amplitude to distribute over the phase bins (its MI would be exactly 0 and its "
                                 "z-scores NaN); leave that channel or band out, or rescale the amplitudes",
                                 s, series_label(s, leading_dims_, leading_names_), band, b.lo, b.hi,
                                 peak == 0 ? std::string("every amplitude is 0")
                                           : fmt::format("the largest amplitude is {:g}, below {:g}", peak,
                                                         kSmallestPeak)));
  }
}

void GivenBandsStage::process(Batch& batch) {
  const Tensor& signal = batch.at(input_);
  const std::int64_t n = batch.series_count;
  const auto n_pha = static_cast<std::int64_t>(pha_.size()), n_amp = static_cast<std::int64_t>(amp_.size());
  float* phase = batch.emplace(tensors::kPhase, {n_pha, length_}, DType::Float32).values<float>().data();
  float* amplitude = batch.emplace(tensors::kAmplitude, {n_amp, length_}, DType::Float32).values<float>().data();
  const float* in = signal.values<float>().data();
  const std::int64_t per_series = (n_pha + n_amp) * length_;
  oneapi::tbb::parallel_for(std::int64_t{0}, n, [&](std::int64_t s) {
    split(in + s * per_series, phase + s * n_pha * length_, amplitude + s * n_amp * length_, batch.first_series + s);
  });
}

}  // namespace pacflow::stages
