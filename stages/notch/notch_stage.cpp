#include "stages/notch/notch_stage.hpp"

#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>

#include "engine/api/errors.hpp"

namespace pacflow::stages {

namespace {

// harmonics=all (unset: every harmonic below fs/2) or a count >= 1.
std::optional<std::int64_t> parse_harmonics(const std::string& param, const json& value) {
  if (value.is_string() && value.get<std::string>() == "all") return std::nullopt;
  if (!(value.is_number_integer() && value.get<std::int64_t>() >= 1))
    throw ParamError(param, fmt::format("expected all or a count >= 1, got {}", value.dump()));
  return value.get<std::int64_t>();
}

}  // namespace

void NotchStage::declare(ParamBinder<NotchStage>& p) {
  p.required(&NotchStage::frequency_, "freq", "the line frequency, e.g. 50 or 60").unit("Hz").greater_than(0);
  p.parsed(&NotchStage::harmonics_, "harmonics", "all", parse_harmonics,
           "how many of freq, 2 freq, 3 freq, … to remove: all (every one below fs/2) or a count (1: freq only)");
  p.add(&NotchStage::q_, "q", 30, "quality factor of each notch: its -3 dB width is its frequency / q").greater_than(0);
}

ElementInfo NotchStage::info() {
  return element_info<NotchStage>("notch",
                                  "line noise and its harmonics removed (scipy iirnotch + filtfilt), as the source "
                                  "reads; right after the source");
}


StreamInfo NotchStage::plan(const StreamInfo& before, json& resolved) {
  const double fs = before.sample_rate, nyquist = fs / 2;
  if (frequency_ >= nyquist)
    throw ParamError("freq", fmt::format("{:g} Hz is at or above the Nyquist frequency ({:g} Hz at {:g} Hz)",
                                         frequency_, nyquist, fs));
  // Counted in double before any list is made: freq=1e-9 once planned 1e11 notches (4 GB, in
  // validate too, deaf to a stop request).
  const double below_nyquist = std::ceil(nyquist / frequency_) - 1;  // harmonics k·freq < fs/2
  if (!harmonics_ && below_nyquist > static_cast<double>(notch::kMaxHarmonics))
    throw ParamError("harmonics", fmt::format("harmonics=all at freq={:g} Hz means {:g} notches below the Nyquist "
                                              "frequency ({:g} Hz), more than the {} allowed (each is a filtfilt pass "
                                              "over every series); check freq (the line frequency, e.g. 50 or 60 Hz) "
                                              "or give a count, harmonics=1 to {}",
                                              frequency_, below_nyquist, nyquist, notch::kMaxHarmonics,
                                              notch::kMaxHarmonics));
  if (harmonics_ && *harmonics_ > notch::kMaxHarmonics)
    throw ParamError("harmonics", fmt::format("{} notches are more than the {} allowed (each is a filtfilt pass over "
                                              "every series); use harmonics=1 to {}",
                                              *harmonics_, notch::kMaxHarmonics,
                                              notch::kMaxHarmonics));
  std::vector<double> frequencies;
  if (!harmonics_) {
    for (std::int64_t k = 1; static_cast<double>(k) * frequency_ < nyquist; ++k)
      frequencies.push_back(static_cast<double>(k) * frequency_);
  } else {
    const std::int64_t count = *harmonics_;
    if (static_cast<double>(count) * frequency_ >= nyquist)
      throw ParamError("harmonics", fmt::format("harmonic {} of {:g} Hz, {:g} Hz, is at or above the Nyquist frequency "
                                                "({:g} Hz); use harmonics={} or all",
                                                count, frequency_, static_cast<double>(count) * frequency_, nyquist,
                                                static_cast<std::int64_t>(std::ceil(nyquist / frequency_)) - 1));
    for (std::int64_t k = 1; k <= count; ++k) frequencies.push_back(static_cast<double>(k) * frequency_);
  }
  if (before.series_length <= static_cast<std::int64_t>(notch::kPadLength))
    throw InputError(fmt::format("series of {} samples are too short for the notch's filtfilt (more than {} needed)",
                                 before.series_length, notch::kPadLength));
  filters_.clear();
  for (const double f : frequencies) filters_.push_back(notch::iir_notch(f, q_, fs));
  length_ = before.series_length;
  resolved["frequencies_hz"] = frequencies;
  resolved["filter"] = "scipy.signal.iirnotch(f, q, fs) for each frequency in turn, filtfilt padtype=odd padlen=9, "
                       "in double";
  return before;
}

void NotchStage::apply(const float* in, float* out, std::int64_t, std::int64_t count) const {
  const auto t = static_cast<std::size_t>(length_);
  struct Buffers {
    std::vector<double> series, extension;
  };
  oneapi::tbb::enumerable_thread_specific<Buffers> buffers;
  oneapi::tbb::parallel_for(std::int64_t{0}, count, [&](std::int64_t s) {
    Buffers& b = buffers.local();
    b.series.assign(in + static_cast<std::size_t>(s) * t, in + static_cast<std::size_t>(s + 1) * t);
    for (const auto& filter : filters_) notch::filtfilt(filter, b.series, b.extension);
    float* dst = out + static_cast<std::size_t>(s) * t;
    for (std::size_t i = 0; i < t; ++i) dst[i] = static_cast<float>(b.series[i]);
  });
}

double NotchStage::host_workspace_bytes() const {
  return static_cast<double>(oneapi::tbb::info::default_concurrency()) *
         static_cast<double>(2 * length_ + 2 * static_cast<std::int64_t>(notch::kPadLength)) * sizeof(double);
}

}  // namespace pacflow::stages
