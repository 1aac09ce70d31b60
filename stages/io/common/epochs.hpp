#pragma once
// Cutting a continuous recording into epochs of equal length: fixed windows (`epoch=4s step=2s`)
// or windows around event onsets (`events=NAME window=-1s:3s`). All positions are in samples.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/api/params.hpp"

namespace pacflow::stages {

struct Epochs {
  std::vector<std::int64_t> starts;  // first sample of each epoch
  std::int64_t length = 0;           // samples per epoch
  std::vector<std::int64_t> condition;  // per epoch, the index of its event type (events=[a, b]); or empty
};

// Windows [k step, k step + length) for k = 0, 1, … while they fit in `total` samples; the
// samples after the last window are left out.
Epochs fixed_windows(std::int64_t total, std::int64_t length, std::int64_t step);

// An offset from an event onset, "-1s", "250ms", "-128smp" (samples).
struct SignedDuration {
  Duration magnitude;
  bool negative = false;
  double samples_exact(double sample_rate) const {
    return (negative ? -1.0 : 1.0) * magnitude.samples_exact(sample_rate);
  }
};

// `window=START:END`, e.g. "-1s:3s" or "-0.5s:1.5s" or "-256smp:768smp" (samples). Throws
// ParamError(param) unless both ends are durations. END > START is checked in samples, by the caller.
struct EventWindow {
  SignedDuration start, end;
};
EventWindow parse_event_window(const std::string& param, const nlohmann::json& value);

// One window of round(end) - round(start) samples around each onset (in samples, rounded), starting
// at onset + round(start). Windows that do not fit in [0, total) are skipped; `skipped` gets the
// index of each (in `onsets`).
Epochs event_windows(const std::vector<std::int64_t>& onsets, std::int64_t start, std::int64_t end,
                     std::int64_t total, std::vector<std::size_t>& skipped);

}  // namespace pacflow::stages
