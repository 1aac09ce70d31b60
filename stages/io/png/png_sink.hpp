#pragma once
// Sink `png`: the comodulogram (mean over every leading dim: epochs and channels, or pairs) as a
// heat map with axes in Hz and a colour bar. Plots z-scores when surrogates ran, else the PAC.
#include <vector>

#include "engine/registry.hpp"

namespace pacflow::stages {

class PngSink final : public Sink {
 public:
  explicit PngSink(const Params& params);
  void plan(const PlanContext& ctx) override;
  void consume(const Batch& batch) override;
  void finish(const json& report) override;

  static ElementInfo info();

 private:
  std::string path_;
  std::string tensor_;
  std::vector<double> x_centres_;
  std::vector<double> y_centres_;
  std::vector<double> sum_;
  std::vector<std::int64_t> count_;
  std::string title_;
  std::string colorbar_;
};

}  // namespace pacflow::stages
