#pragma once
// ERPAC as the png sink draws it: one panel per phase band, time on x, amplitude frequency on y,
// colour = ρ averaged over channels (and segments), as the comodulogram averages; a cell is outlined
// when its corrected p-value (erpac_pvalues) is below alpha in enough channels (the binomial rule the
// comodulogram grid applies to epochs). Long epochs are shown in at most `max_columns` time columns,
// each the mean of its samples, outlined when any of its samples is. When the epochs hold time
// before their event (t < 0), a white line marks the event (t = 0).
#include <cstdint>
#include <span>
#include <vector>

#include "stages/io/png/comodulogram_plot.hpp"

namespace pacflow::plot {

// Sums over the result rows (channels, segments) of ρ and of p < alpha, per cell [n_pha][n_amp][time].
struct ErpacSums {
  std::int64_t n_pha = 0, n_amp = 0, length = 0;
  std::vector<double> sum;          // finite ρ only
  std::vector<std::int64_t> count;  // finite ρ
  std::vector<std::int64_t> hits;   // rows with p < alpha
  std::int64_t rows = 0;

  void reset(std::int64_t pha, std::int64_t amp, std::int64_t time);
  // `rho` and `p` hold `rows` rows of n_pha · n_amp · length values.
  void add(std::span<const float> rho, std::span<const float> p, double alpha);
};

struct ErpacAxes {
  std::vector<double> times_s;          // length
  std::vector<double> pha_centres_hz;   // n_pha
  std::vector<double> amp_centres_hz;   // n_amp
};

// Time columns at most: 3 pixels each in a 360-pixel panel.
inline constexpr std::size_t kErpacColumns = 120;

// The grid render_grid draws; `needed` rows with p < alpha outline a cell.
HeatmapGrid erpac_grid(const ErpacSums& sums, const ErpacAxes& axes, std::int64_t needed, std::size_t max_columns);

}  // namespace pacflow::plot
