#pragma once
// Stage `notch`: removes line noise and its harmonics from every series before any other stage, as
// the source reads them (a preprocessing stage, engine/api/transform.hpp): for each frequency f, 2f, …
// in turn, scipy's iirnotch(f, q, fs) applied by filtfilt (notch_filter.hpp), in double precision.
#include <optional>
#include <vector>

#include "engine/api/param_binding.hpp"
#include "engine/api/transform.hpp"
#include "stages/notch/notch_filter.hpp"

namespace pacflow::stages {

class NotchStage final : public Transform {
 public:
  StreamInfo plan(const StreamInfo& before, json& resolved) override;
  bool per_epoch() const override { return false; }
  void apply(const float* in, float* out, std::int64_t first, std::int64_t count) const override;
  // One series in double and its extension, per thread.
  double host_workspace_bytes() const override;

  static ElementInfo info();
  static void declare(ParamBinder<NotchStage>& p);
 private:
  double frequency_ = 0;
  std::optional<std::int64_t> harmonics_;  // harmonics=: a count; unset: all below fs/2
  double q_ = 30;
  std::vector<notch::Biquad> filters_;  // one per frequency, ascending
  std::int64_t length_ = 0;
};

}  // namespace pacflow::stages
