#pragma once
// One comodulogram panel: its cells (x to the right, y upwards), outlines around chosen cells, and
// tick labels at cell centres. Shared by the single plot and the per-channel grid.
#include <string>
#include <vector>

#include "stages/io/png/plot_drawing.hpp"

namespace pacflow::plot {

// Outline of a significant cell: a colour viridis never takes, drawn inside the cell's edges.
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

// values and outlined are [nx][ny] (values[ix * ny + iy]); outlined may be empty. NaN is grey.
void draw_cells(Image& img, const PanelArea& area, const std::vector<double>& values, ColourRange range,
                const std::vector<bool>& outlined);
// Tick marks and labels below the panel (x) or left of it (y), at the centres of a subset of cells.
void draw_x_ticks(Image& img, const PanelArea& area, const std::vector<std::string>& labels);
void draw_y_ticks(Image& img, const PanelArea& area, const std::vector<std::string>& labels);

}  // namespace pacflow::plot
