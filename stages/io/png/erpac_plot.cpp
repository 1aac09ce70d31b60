#include "stages/io/png/erpac_plot.hpp"

#include "stages/io/png/plot_drawing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace pacflow::plot {

void ErpacSums::reset(std::int64_t pha, std::int64_t amp, std::int64_t time) {
  n_pha = pha;
  n_amp = amp;
  length = time;
  const auto cells = static_cast<std::size_t>(pha * amp * time);
  sum.assign(cells, 0.0);
  count.assign(cells, 0);
  hits.assign(cells, 0);
  rows = 0;
}

void ErpacSums::add(std::span<const float> rho, std::span<const float> p, double alpha) {
  const std::size_t cells = sum.size();
  if (cells == 0 || rho.size() % cells != 0 || p.size() != rho.size())
    throw std::invalid_argument("ErpacSums::add: values are not whole rows");
  for (std::size_t i = 0; i < rho.size(); ++i) {
    const std::size_t cell = i % cells;
    if (std::isfinite(rho[i])) {
      sum[cell] += rho[i];
      ++count[cell];
    }
    hits[cell] += double{p[i]} < alpha ? 1 : 0;
  }
  rows += static_cast<std::int64_t>(rho.size() / cells);
}

HeatmapGrid erpac_grid(const ErpacSums& sums, const ErpacAxes& axes, std::int64_t needed, std::size_t max_columns) {
  const auto length = static_cast<std::size_t>(sums.length), n_amp = static_cast<std::size_t>(sums.n_amp);
  if (axes.times_s.size() != length || axes.amp_centres_hz.size() != n_amp ||
      axes.pha_centres_hz.size() != static_cast<std::size_t>(sums.n_pha) || max_columns == 0)
    throw std::invalid_argument("erpac_grid: axes do not fit the sums");
  // Column j holds samples [j · length / columns, (j + 1) · length / columns).
  const std::size_t columns = std::min(length, max_columns);
  const auto first = [&](std::size_t j) { return j * length / columns; };
  HeatmapGrid grid;
  for (std::size_t j = 0; j < columns; ++j) {
    double t = 0;
    for (std::size_t i = first(j); i < first(j + 1); ++i) t += axes.times_s[i];
    grid.x_centres.push_back(t / static_cast<double>(first(j + 1) - first(j)));
  }
  grid.y_centres = axes.amp_centres_hz;
  for (std::size_t p = 0; p < axes.pha_centres_hz.size(); ++p) {
    HeatmapGrid::Panel panel{"phase " + format_hz(axes.pha_centres_hz[p]) + " Hz", {}, {}};
    for (std::size_t j = 0; j < columns; ++j)
      for (std::size_t a = 0; a < n_amp; ++a) {
        double sum = 0;
        std::int64_t count = 0;
        bool outlined = false;
        for (std::size_t i = first(j); i < first(j + 1); ++i) {
          const std::size_t cell = (p * n_amp + a) * length + i;
          sum += sums.sum[cell];
          count += sums.count[cell];
          outlined = outlined || sums.hits[cell] >= needed;
        }
        panel.values.push_back(count ? sum / static_cast<double>(count) : std::numeric_limits<double>::quiet_NaN());
        panel.outlined.push_back(outlined);
      }
    grid.panels.push_back(std::move(panel));
  }
  // The event, where the epochs hold time before it (epochs cut around events with window= from < 0).
  if (axes.times_s.front() < 0 && axes.times_s.back() > 0) grid.x_markers = {0.0};
  grid.x_label = "time (s)";
  grid.y_label = "amplitude frequency (Hz)";
  grid.colorbar_label = "ERPAC ρ";
  return grid;
}

}  // namespace pacflow::plot
