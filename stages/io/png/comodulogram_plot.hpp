// Comodulogram heat maps drawn as figures (viridis colour map, axes, colour bar; written as PNG, SVG or
// PDF from one drawing): one map, or a grid of small maps (one per channel) on a shared colour scale.
#pragma once

#include <string>
#include <vector>

#include "stages/io/png/canvas.hpp"

namespace pacflow::plot {

struct Heatmap {
  std::vector<double> values;     // row-major [x_count][y_count]: values[ix * y_count + iy]
  std::vector<double> x_centres;  // e.g. phase-band centre frequencies in Hz (x axis), size x_count
  std::vector<double> y_centres;  // e.g. amplitude-band centre frequencies in Hz (y axis), size y_count
  std::string title;              // e.g. "PAC z-score, mean over 8 epochs x 16 channels"
  std::string x_label;            // e.g. "phase frequency (Hz)"
  std::string y_label;            // e.g. "amplitude frequency (Hz)"
  std::string colorbar_label;     // e.g. "z-score"
  std::vector<bool> outlined;     // empty, or like `values`: cells framed in kSignificant
};

// Draws the heat map with axes, ticks, labels, title and a colour bar.
// Colours span [min, max] of the finite values. Throws std::invalid_argument
// for inconsistent sizes, empty axes or an image too small for the layout.
Canvas render_heatmap(const Heatmap& map, int width = 900, int height = 700);

// Small multiples: one panel per entry, all on the colour scale of every panel's finite values.
struct HeatmapGrid {
  struct Panel {
    std::string label;           // drawn above the panel, e.g. the channel name
    std::vector<double> values;  // [x_count][y_count] as in Heatmap
    std::vector<bool> outlined;  // empty, or like `values`
  };
  std::vector<Panel> panels;
  std::vector<double> x_centres;
  std::vector<double> y_centres;
  std::string title;     // first line at the top
  std::string subtitle;  // second line, smaller (e.g. what the outlines mean)
  std::string x_label;
  std::string y_label;
  std::string colorbar_label;
  std::vector<double> x_markers;  // vertical lines across every panel at these x values (ERPAC: the event)
};

// Where render_grid puts things: panels fill `columns` x `rows` in reading order.
struct GridLayout {
  struct Box {
    int x0, y0, x1, y1;   // the panel's plot area, half-open
    int label_x, label_y; // the label's anchor: centred on label_x, capitals from label_y down
  };
  int columns = 0, rows = 0, width = 0, height = 0;
  std::vector<Box> panels;
};

// Throws std::invalid_argument for no panels, empty axes or inconsistent sizes.
GridLayout layout_grid(const HeatmapGrid& grid, int panel_width = 180, int panel_height = 140);
Canvas render_grid(const HeatmapGrid& grid, int panel_width = 180, int panel_height = 140);


}  // namespace pacflow::plot
