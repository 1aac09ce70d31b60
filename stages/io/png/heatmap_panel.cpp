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

void draw_cells(Canvas& canvas, const PanelArea& area, const std::vector<double>& values, ColourRange range,
                const std::vector<bool>& outlined) {
  std::vector<Rgb> colours;  // [row][column], the top row (iy = ny - 1) first
  colours.reserve(area.nx * area.ny);
  for (std::size_t row = 0; row < area.ny; ++row)
    for (std::size_t ix = 0; ix < area.nx; ++ix) {
      const double v = values[ix * area.ny + (area.ny - 1 - row)];
      colours.push_back(std::isnan(v) ? kNanGrey : viridis((v - range.lo) / (range.hi - range.lo)));
    }
  canvas.cells(area.x0, area.y0, area.x1, area.y1, static_cast<int>(area.nx), static_cast<int>(area.ny), colours);
  // The contour of each region of significant cells: a line inside the region along every cell side
  // that borders a cell outside it (or the panel's edge), none between two significant cells.
  const auto in = [&](std::ptrdiff_t ix, std::ptrdiff_t iy) {
    return ix >= 0 && iy >= 0 && ix < static_cast<std::ptrdiff_t>(area.nx) && iy < static_cast<std::ptrdiff_t>(area.ny) &&
           outlined[static_cast<std::size_t>(ix) * area.ny + static_cast<std::size_t>(iy)];
  };
  constexpr int w = kSignificantWidth;
  for (std::size_t ix = 0; ix < area.nx && !outlined.empty(); ++ix)
    for (std::size_t iy = 0; iy < area.ny; ++iy) {
      const auto x = static_cast<std::ptrdiff_t>(ix), y = static_cast<std::ptrdiff_t>(iy);
      if (!in(x, y)) continue;
      const int x0 = area.x_edge(ix), x1 = area.x_edge(ix + 1), top = area.y_edge(iy + 1), bottom = area.y_edge(iy);
      if (!in(x - 1, y)) canvas.fill(x0, top, x0 + w, bottom, kSignificant);
      if (!in(x + 1, y)) canvas.fill(x1 - w, top, x1, bottom, kSignificant);
      if (!in(x, y + 1)) canvas.fill(x0, top, x1, top + w, kSignificant);
      if (!in(x, y - 1)) canvas.fill(x0, bottom - w, x1, bottom, kSignificant);
    }
  outline(canvas, area.x0, area.y0, area.x1, area.y1);
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
    return static_cast<double>(labels.size()) * ((along_x ? widest(labels) : label_height()) + 8);
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
  for (const std::size_t i : tick_cells(centres.size(), cell_px, along_x ? widest(labels) : label_height()))
    ticks.push_back({static_cast<double>(i) + 0.5, labels[i]});
  return ticks;
}

void draw_x_ticks(Canvas& canvas, const PanelArea& area, const std::vector<AxisTick>& ticks) {
  for (const AxisTick& t : ticks) {
    const int x = area.x0 + static_cast<int>(std::lround(t.position * area.cell_width()));
    canvas.fill(x, area.y1 + 1, x + 1, area.y1 + 1 + kTick, kBlack);
    canvas.text(t.label, x + 0.5, area.y1 + 1 + kTick + kGap, Align::kCentre, Align::kStart, kFontSize);
  }
}

void draw_y_ticks(Canvas& canvas, const PanelArea& area, const std::vector<AxisTick>& ticks) {
  for (const AxisTick& t : ticks) {  // y grows upwards: position 0 sits on the bottom edge
    const int y = area.y1 - static_cast<int>(std::lround(t.position * area.cell_height()));
    canvas.fill(area.x0 - 1 - kTick, y, area.x0 - 1, y + 1, kBlack);
    canvas.text(t.label, area.x0 - 1 - kTick - kGap, y + 0.5, Align::kEnd, Align::kCentre, kFontSize);
  }
}

void draw_x_marker(Canvas& canvas, const PanelArea& area, const std::vector<double>& x_centres, double x) {
  const double u = x_centres.size() == area.nx ? position_in_cells(x_centres, x) : std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(u)) return;
  const int px = area.x0 + static_cast<int>(std::lround(u * area.cell_width()));
  canvas.fill(px - kMarkerWidth / 2, area.y0, px - kMarkerWidth / 2 + kMarkerWidth, area.y1, kMarker);
}

}  // namespace pacflow::plot
