#pragma once
// Source `synthetic`: coupled test signals (spec §7), deterministic for a seed on every machine.
// Every series is a pure function of (seed, series index), so any batching gives the same data.
#include <optional>
#include <vector>

#include "engine/api/param_binding.hpp"

namespace pacflow::stages {

struct SyntheticConfig {
  double fs = 512;
  std::int64_t epochs = 8;
  std::int64_t channels = 16;
  std::int64_t n_times = 2048;
  double f_pha = 6;
  double f_amp = 80;
  double chi = 0;
  double noise = 0.5;
  double pha_bw = 1.5;
  std::uint64_t seed = 0;
  std::string model = "driven";
  std::vector<std::int64_t> coupled;  // empty: every channel coupled
};

// Writes the samples of series `index` (epoch = index / channels, channel = index % channels).
void synthesize_series(const SyntheticConfig& config, std::int64_t index, float* out);

class SyntheticSource final : public Source {
 public:
  StreamInfo open(const std::stop_token& stop) override;
  void read(std::int64_t first, std::int64_t count, float* dst) override;

  static ElementInfo info();
  static void declare(ParamBinder<SyntheticSource>& p);
  // The checks across parameters (against fs, the series count), n_times from seconds, the
  // coupled channels and the description.
  void configured(const Params& params);

 private:
  SyntheticConfig config_;
  std::optional<std::int64_t> n_times_;  // as given; else from seconds_
  double seconds_ = 4.0;
  std::optional<std::vector<double>> coupled_;  // as given
  json description_;
};

}  // namespace pacflow::stages
