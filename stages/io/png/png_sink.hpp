#pragma once
// Sink `png`: the comodulogram (mean over epochs and channels) as a heat map with axes in Hz and a
// colour bar, plus (grid=true) STEM_channels.png beside it: one panel per channel, labelled with the
// channel's name, averaged over epochs, on a shared colour scale. Plots z-scores when surrogates
// ran, else the modulation index. With surrogates, panel cells are outlined where the family-wise
// p-value (pvalues_maxstat) is below alpha / epochs in at least one epoch: the max statistic
// controls the error over cells, Bonferroni over epochs (with one epoch: p < alpha).
#include <filesystem>
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
  // Where the per-channel grid goes for a plot at `path`: comodulogram.png -> comodulogram_channels.png.
  static std::filesystem::path grid_path(const std::filesystem::path& path);

 private:
  std::vector<bool> significant_cells(std::int64_t channel) const;

  std::filesystem::path path_;
  bool grid_;
  double alpha_;
  std::string tensor_;
  std::vector<double> x_centres_;
  std::vector<double> y_centres_;
  std::int64_t epochs_ = 0;
  std::int64_t channels_ = 0;
  std::vector<std::string> channel_labels_;
  std::vector<double> sum_;          // [channel][cell], finite values only
  std::vector<std::int64_t> count_;  // [channel][cell]
  bool significance_ = false;        // pvalues_maxstat is available
  std::vector<double> min_p_;        // [channel][cell]: smallest family-wise p over epochs
  std::string what_;                 // "PAC z-score against surrogates" or "Tort modulation index"
  std::size_t surrogates_ = 0;
};

}  // namespace pacflow::stages
