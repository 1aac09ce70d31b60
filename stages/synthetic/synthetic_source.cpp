#include "stages/synthetic/synthetic_source.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numbers>

#include "engine/api/errors.hpp"
#include "stages/common/counter_rng.hpp"
#include "stages/common/sample_range.hpp"

namespace pacflow::stages {

void SyntheticSource::declare(ParamBinder<SyntheticSource>& p) {
  using S = SyntheticSource;
  p.add([](S& s) -> double& { return s.config_.fs; }, "fs", 512.0, "sample rate").unit("Hz").greater_than(0);
  p.add([](S& s) -> std::int64_t& { return s.config_.epochs; }, "epochs", 8, "number of epochs").at_least(1);
  p.add([](S& s) -> std::int64_t& { return s.config_.channels; }, "channels", 16, "channels per epoch").at_least(1);
  p.optional(&S::n_times_, "n_times", "samples per series (overrides seconds)").unit("samples");
  p.add(&S::seconds_, "seconds", 4.0, "series duration when n_times is not given").unit("s");
  p.add([](S& s) -> double& { return s.config_.f_pha; }, "f_pha", 6.0, "frequency of the slow (phase) rhythm")
      .unit("Hz");
  p.add([](S& s) -> double& { return s.config_.f_amp; }, "f_amp", 80.0,
        "frequency of the fast (amplitude-modulated) rhythm")
      .unit("Hz");
  p.add([](S& s) -> double& { return s.config_.chi; }, "chi", 0.0, "coupling: 0 strongest, 1 none").range(0, 1);
  p.add([](S& s) -> double& { return s.config_.noise; }, "noise", 0.5,
        "noise level (std of N(0,1) for driven, scale of U[0,1) for tort)");
  p.add([](S& s) -> double& { return s.config_.pha_bw; }, "pha_bw", 1.5,
        "driven model: half-width of the slow rhythm's spectral peak")
      .unit("Hz");
  p.add([](S& s) -> std::uint64_t& { return s.config_.seed; }, "seed", 0, "random seed").at_least(0);
  p.choice([](S& s) -> std::string& { return s.config_.model; }, "model", {{"driven", "driven"}, {"tort", "tort"}},
           "driven", "driven (diffusing phase) or tort (TensorPAC's pac_signals_tort)");
  p.optional(&S::coupled_, "coupled", "channel indices that are coupled (others get chi = 1)");
}

ElementInfo SyntheticSource::info() {
  return element_info<SyntheticSource>("synthetic", "phase-amplitude coupled test signals, model driven or tort (spec §7)");
}

void SyntheticSource::configured(const Params& params) {
  auto& c = config_;
  const double n_times = n_times_ ? static_cast<double>(*n_times_) : std::round(seconds_ * c.fs);
  if (!(n_times >= 2) || n_times > 0x1p31)
    throw ParamError(n_times_ ? "n_times" : "seconds", "series need from 2 to 2^31 samples");
  c.n_times = static_cast<std::int64_t>(n_times);
  if (static_cast<double>(c.epochs) * static_cast<double>(c.channels) * static_cast<double>(c.n_times) > 0x1p40)
    throw ParamError("epochs", "epochs x channels x samples exceeds 2^40");
  if (!(c.f_pha > 0) || c.f_pha >= c.fs / 2) throw ParamError("f_pha", "must be in (0, fs/2)");
  if (!(c.f_amp > 0) || c.f_amp >= c.fs / 2) throw ParamError("f_amp", "must be in (0, fs/2)");
  // Samples are at most 2 + noise × 8.6 (the largest normal deviate the generator can draw): within
  // the range the float32 arithmetic carries (stages/common/sample_range.hpp).
  if (!(c.noise >= 0 && c.noise <= kLargestSample / 10))
    throw ParamError("noise", fmt::format("must be from 0 to {:g}, got {:g}: larger samples overflow the float32 "
                                          "filters",
                                          kLargestSample / 10, c.noise));
  // The phase diffuses by sqrt(4π pha_bw / fs) per sample: a peak wider than the whole spectrum (half
  // the sample rate) is noise, and far larger values overflow the step.
  if (!(c.pha_bw >= 0 && c.pha_bw <= c.fs / 2))
    throw ParamError("pha_bw", fmt::format("must be from 0 to fs/2 = {:g} Hz, got {:g}", c.fs / 2, c.pha_bw));
  if (coupled_) {
    if (coupled_->empty())
      throw ParamError("coupled", "the list is empty; leave it out to couple every channel, or set chi=1 for none");
    for (double ch : *coupled_) {
      if (ch != std::floor(ch) || ch < 0 || ch >= static_cast<double>(c.channels))
        throw ParamError("coupled", fmt::format("channel {} is not in [0, {}]", ch, c.channels - 1));
      c.coupled.push_back(static_cast<std::int64_t>(ch));
    }
  }
  description_ = params.all();
  description_["source"] = "synthetic";
  description_["dtype"] = "float32";
  description_["n_times"] = c.n_times;
}

StreamInfo SyntheticSource::open(const std::stop_token& /*stop*/) {
  StreamInfo info;
  info.leading_dims = {config_.epochs, config_.channels};
  info.leading_names = {"epochs", "channels"};
  info.series_length = config_.n_times;
  info.sample_rate = config_.fs;
  info.description = description_;
  if (config_.model == "tort")
    info.shifts_keep_coupling = "the tort signal model has a pure-sine slow rhythm: every circular shift keeps the "
                                "coupling; use model=driven";
  return info;
}

void SyntheticSource::read(std::int64_t first, std::int64_t count, float* dst) {
  // Each series is a pure function of its index: synthesise them in parallel (the executor calls
  // read() serially, so this is what keeps a fast device fed).
  oneapi::tbb::parallel_for(std::int64_t{0}, count, [&](std::int64_t i) {
    synthesize_series(config_, first + i, dst + static_cast<std::size_t>(i * config_.n_times));
  });
}

void synthesize_series(const SyntheticConfig& c, std::int64_t index, float* out) {
  constexpr double two_pi = 2.0 * std::numbers::pi;
  const std::int64_t channel = index % c.channels;
  const bool coupled = c.coupled.empty() || std::find(c.coupled.begin(), c.coupled.end(), channel) != c.coupled.end();
  const double chi = coupled ? c.chi : 1.0;
  const std::uint64_t series_key = rng::key(c.seed, static_cast<std::uint64_t>(index));
  const std::uint64_t phase_key = rng::key(series_key, 1);
  const std::uint64_t noise_key = rng::key(series_key, 2);

  if (c.model == "driven") {
    const double sigma = std::sqrt(4.0 * std::numbers::pi * c.pha_bw / c.fs);
    double theta = two_pi * rng::uniform(rng::key(series_key, 3), 0);  // random starting phase
    for (std::int64_t i = 0; i < c.n_times; ++i) {
      if (i > 0) theta += two_pi * c.f_pha / c.fs + sigma * rng::normal(phase_key, static_cast<std::uint64_t>(i));
      const double t = static_cast<double>(i) / c.fs;
      const double slow = std::cos(theta);
      const double x = 0.5 * ((1 - chi) * slow + 1 + chi) * std::sin(two_pi * c.f_amp * t) + slow +
                       c.noise * rng::normal(noise_key, static_cast<std::uint64_t>(i));
      out[i] = static_cast<float>(x);
    }
  } else {
    for (std::int64_t i = 0; i < c.n_times; ++i) {
      const double t = static_cast<double>(i) / c.fs;
      const double slow = std::sin(two_pi * c.f_pha * t);
      const double x = 0.5 * ((1 - chi) * slow + 1 + chi) * std::sin(two_pi * c.f_amp * t) + slow +
                       c.noise * rng::uniform(noise_key, static_cast<std::uint64_t>(i));
      out[i] = static_cast<float>(x);
    }
  }
}

}  // namespace pacflow::stages
