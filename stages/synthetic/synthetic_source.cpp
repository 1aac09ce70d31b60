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

ElementInfo SyntheticSource::info() {
  ElementInfo info;
  info.kind = ElementKind::Source;
  info.name = "synthetic";
  info.summary = "phase-amplitude coupled test signals, model driven or tort (spec §7)";
  info.params = {
      {"fs", ParamType::Number, 512.0, "Hz", "sample rate"},
      {"epochs", ParamType::Integer, 8, "", "number of epochs"},
      {"channels", ParamType::Integer, 16, "", "channels per epoch"},
      {"n_times", ParamType::Integer, nullptr, "samples", "samples per series (overrides seconds)", true},
      {"seconds", ParamType::Number, 4.0, "s", "series duration when n_times is not given"},
      {"f_pha", ParamType::Number, 6.0, "Hz", "frequency of the slow (phase) rhythm"},
      {"f_amp", ParamType::Number, 80.0, "Hz", "frequency of the fast (amplitude-modulated) rhythm"},
      {"chi", ParamType::Number, 0.0, "", "coupling: 0 strongest, 1 none"},
      {"noise", ParamType::Number, 0.5, "", "noise level (std of N(0,1) for driven, scale of U[0,1) for tort)"},
      {"pha_bw", ParamType::Number, 1.5, "Hz", "driven model: half-width of the slow rhythm's spectral peak"},
      {"seed", ParamType::Integer, 0, "", "random seed"},
      {"model", ParamType::String, "driven", "", "driven (diffusing phase) or tort (TensorPAC's pac_signals_tort)"},
      {"coupled", ParamType::NumberList, nullptr, "", "channel indices that are coupled (others get chi = 1)", true},
  };
  info.make_source = [](const Params& p) { return std::make_unique<SyntheticSource>(p); };
  return info;
}

SyntheticSource::SyntheticSource(const Params& params) {
  auto& c = config_;
  c.fs = params.number("fs");
  c.epochs = params.integer("epochs");
  c.channels = params.integer("channels");
  const double n_times = params.has("n_times") ? static_cast<double>(params.integer("n_times"))
                                              : std::round(params.number("seconds") * c.fs);
  if (!(n_times >= 2) || n_times > 0x1p31)
    throw ParamError(params.has("n_times") ? "n_times" : "seconds", "series need from 2 to 2^31 samples");
  c.n_times = static_cast<std::int64_t>(n_times);
  c.f_pha = params.number("f_pha");
  c.f_amp = params.number("f_amp");
  c.chi = params.number("chi");
  c.noise = params.number("noise");
  c.pha_bw = params.number("pha_bw");
  c.model = params.string("model");
  if (!(c.fs > 0)) throw ParamError("fs", "must be > 0");
  if (c.epochs < 1) throw ParamError("epochs", "must be >= 1");
  if (c.channels < 1) throw ParamError("channels", "must be >= 1");
  if (static_cast<double>(c.epochs) * static_cast<double>(c.channels) * static_cast<double>(c.n_times) > 0x1p40)
    throw ParamError("epochs", "epochs x channels x samples exceeds 2^40");
  if (!(c.f_pha > 0) || c.f_pha >= c.fs / 2) throw ParamError("f_pha", "must be in (0, fs/2)");
  if (!(c.f_amp > 0) || c.f_amp >= c.fs / 2) throw ParamError("f_amp", "must be in (0, fs/2)");
  if (c.chi < 0 || c.chi > 1) throw ParamError("chi", "must be in [0, 1]");
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
  if (params.integer("seed") < 0) throw ParamError("seed", "must be >= 0");
  c.seed = static_cast<std::uint64_t>(params.integer("seed"));
  if (c.model != "driven" && c.model != "tort")
    throw ParamError("model", fmt::format("must be \"driven\" or \"tort\", got \"{}\"", c.model));
  if (params.has("coupled")) {
    if (params.number_list("coupled").empty())
      throw ParamError("coupled", "the list is empty; leave it out to couple every channel, or set chi=1 for none");
    for (double ch : params.number_list("coupled")) {
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
