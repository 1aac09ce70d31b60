#pragma once
// One comodulogram panel: its cells (x to the right, y upwards), outlines around chosen cells, and
// tick labels at cell centres. Shared by the single plot and the per-channel grid.
#include <string>
#include <vector>

#include "stages/io/png/plot_drawing.hpp"

namespace pacflow::plot {

// The contour around significant cells: a colour viridis never takes, drawn just inside the region.
inline constexpr Rgb kSignificant{230, 25, 75};
inline constexpr int kSignificantWidth = 2;

// A plot area [x0, x1) x [y0, y1) split into nx x ny cells; cell (0, 0) sits at the bottom left.
struct PanelArea {
  int x0, y0, x1, y1;
  std::size_t nx, ny;
  int x_edge(std::size_t i) const;  // left edge of column i (i = nx: the right edge)
  int y_edge(std::size_t i) const;  // bottom edge of row i (i = ny: the top edge)
  double cell_width() const { return (x1 - x0) / static_cast<double>(nx); }
  double cell_height() const { return (y1 - y0) / static_cast<double>(ny); }
};

// values and outlined are [nx][ny] (values[ix * ny + iy]); outlined may be empty. NaN is grey. Each
// region of outlined cells gets one contour, kSignificantWidth wide, inside its boundary.
void draw_cells(Canvas& canvas, const PanelArea& area, const std::vector<double>& values, ColourRange range,
                const std::vector<bool>& outlined);
// Where `x` lies on an axis whose cells are centred at `centres` (increasing), in cells: cell k spans
// [k, k + 1) with its centre at k + 0.5; between two centres in proportion, and up to half a cell
// past the first or last. NaN outside that, or when the axis has fewer than two cells or its
// centres do not increase.
double position_in_cells(const std::vector<double>& centres, double x);

// A labelled tick of an axis: its position in cells (position_in_cells) and its text.
struct AxisTick {
  double position;
  std::string label;
};
// Ticks at round values (1, 2 or 5 times a power of ten apart: 60, 80, 100 Hz, not the band centres
// 60, 82.2, 104) between the first and last centres, as many as fit along `length_px` pixels when
// each label takes its own size (`along_x`: its width, else the font's height) and a gap. An axis of
// three cells or fewer, or whose centres do not increase, gets its centres' own labels on as many
// cells as fit.
std::vector<AxisTick> axis_ticks(const std::vector<double>& centres, double length_px, bool along_x);

// A line marking a moment (an event at t = 0): a colour viridis never takes, across the panel.
inline constexpr Rgb kMarker{255, 255, 255};
inline constexpr int kMarkerWidth = 2;

// A vertical line at `x` on the axis whose columns are centred at `x_centres`; none outside it.
void draw_x_marker(Canvas& canvas, const PanelArea& area, const std::vector<double>& x_centres, double x);

// Tick marks and labels below the panel (x) or left of it (y).
void draw_x_ticks(Canvas& canvas, const PanelArea& area, const std::vector<AxisTick>& ticks);
void draw_y_ticks(Canvas& canvas, const PanelArea& area, const std::vector<AxisTick>& ticks);

}  // namespace pacflow::plot
