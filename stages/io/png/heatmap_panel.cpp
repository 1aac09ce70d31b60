#include "stages/io/png/heatmap_panel.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace pacflow::plot {

int PanelArea::x_edge(std::size_t i) const {
  return x0 + static_cast<int>(std::lround(static_cast<double>(i) * cell_width()));
}

int PanelArea::y_edge(std::size_t i) const {  // y grows upwards: cell 0 sits on the bottom edge
  return y1 - static_cast<int>(std::lround(static_cast<double>(i) * cell_height()));
}

void draw_cells(Image& img, const PanelArea& area, const std::vector<double>& values, ColourRange range,
                const std::vector<bool>& outlined) {
  for (std::size_t ix = 0; ix < area.nx; ++ix) {
    for (std::size_t iy = 0; iy < area.ny; ++iy) {
      const double v = values[ix * area.ny + iy];
      const Rgb c = std::isnan(v) ? kNanGrey : viridis((v - range.lo) / (range.hi - range.lo));
      const int cx0 = area.x_edge(ix), cx1 = area.x_edge(ix + 1), cy0 = area.y_edge(iy + 1), cy1 = area.y_edge(iy);
      fill(img, cx0, cy0, cx1, cy1, c);
      if (!outlined.empty() && outlined[ix * area.ny + iy]) {
        const int w = kSignificantWidth;
        outline(img, cx0 + w, cy0 + w, cx1 - w, cy1 - w, kSignificant, w);  // the frame lies inside the cell
      }
    }
  }
  outline(img, area.x0, area.y0, area.x1, area.y1);
}

double position_in_cells(const std::vector<double>& centres, double x) {
  const std::size_t n = centres.size();
  if (n < 2 || !std::isfinite(x) || !std::is_sorted(centres.begin(), centres.end(), std::less_equal<>()))
    return std::numeric_limits<double>::quiet_NaN();
  double u = 0;
  if (x <= centres.front()) {
    u = 0.5 - (centres.front() - x) / (centres[1] - centres.front());
  } else if (x >= centres.back()) {
    u = static_cast<double>(n) - 0.5 + (x - centres.back()) / (centres.back() - centres[n - 2]);
  } else {
    std::size_t k = 0;
    while (centres[k + 1] < x) ++k;
    u = static_cast<double>(k) + 0.5 + (x - centres[k]) / (centres[k + 1] - centres[k]);
  }
  return u >= 0 && u <= static_cast<double>(n) ? u : std::numeric_limits<double>::quiet_NaN();
}

std::vector<AxisTick> axis_ticks(const std::vector<double>& centres, double length_px, bool along_x) {
  const auto room = [&](const std::vector<std::string>& labels) {
    return static_cast<double>(labels.size()) * ((along_x ? widest(labels) : kCapHeight * kScale) + 8);
  };
  std::vector<AxisTick> ticks;
  // Three bands or fewer are each labelled by their centre: round values between them would read as
  // a continuous axis.
  if (centres.size() > 3 && !std::isnan(position_in_cells(centres, centres.front()))) {
    for (std::size_t most = 8; most >= 2 && ticks.empty(); --most) {
      const std::vector<double> values = round_values(centres.front(), centres.back(), most);
      const std::vector<std::string> labels = format_values(values);
      if (values.size() < 2 || room(labels) > length_px) continue;
      for (std::size_t k = 0; k < values.size(); ++k) ticks.push_back({position_in_cells(centres, values[k]), labels[k]});
    }
    if (!ticks.empty()) return ticks;
  }
  // The cells' own centres, on as many cells as fit.
  const std::vector<std::string> labels = format_values(centres);
  const double cell_px = centres.empty() ? 0 : length_px / static_cast<double>(centres.size());
  for (const std::size_t i : tick_cells(centres.size(), cell_px, along_x ? widest(labels) : kCapHeight * kScale))
    ticks.push_back({static_cast<double>(i) + 0.5, labels[i]});
  return ticks;
}

void draw_x_ticks(Image& img, const PanelArea& area, const std::vector<AxisTick>& ticks) {
  for (const AxisTick& t : ticks) {
    const int x = area.x0 + static_cast<int>(std::lround(t.position * area.cell_width()));
    fill(img, x, area.y1 + 1, x + 1, area.y1 + 1 + kTick, kBlack);
    draw_text(img, t.label, x, area.y1 + 1 + kTick + kGap, Align::kCentre, Align::kStart);
  }
}

void draw_y_ticks(Image& img, const PanelArea& area, const std::vector<AxisTick>& ticks) {
  for (const AxisTick& t : ticks) {  // y grows upwards: position 0 sits on the bottom edge
    const int y = area.y1 - static_cast<int>(std::lround(t.position * area.cell_height()));
    fill(img, area.x0 - 1 - kTick, y, area.x0 - 1, y + 1, kBlack);
    draw_text(img, t.label, area.x0 - 1 - kTick - kGap, y, Align::kEnd, Align::kCentre);
  }
}

void draw_x_marker(Image& img, const PanelArea& area, const std::vector<double>& x_centres, double x) {
  const double u = x_centres.size() == area.nx ? position_in_cells(x_centres, x) : std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(u)) return;
  const int px = area.x0 + static_cast<int>(std::lround(u * area.cell_width()));
  fill(img, px - kMarkerWidth / 2, area.y0, px - kMarkerWidth / 2 + kMarkerWidth, area.y1, kMarker);
}

}  // namespace pacflow::plot
