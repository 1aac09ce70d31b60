#include "stages/io/png/comodulogram_plot.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "stages/io/png/heatmap_panel.hpp"

namespace pacflow::plot {

namespace {

constexpr int kPanelGap = 16;
int label_band() { return label_height() + 10; }                    // above each panel: its label
int tick_band() { return kTick + kGap + label_height() + 14; }      // below each panel: x tick labels

void check_grid(const HeatmapGrid& grid) {
  const std::size_t cells = grid.x_centres.size() * grid.y_centres.size();
  if (grid.panels.empty()) throw std::invalid_argument("render_grid: no panels");
  if (cells == 0) throw std::invalid_argument("render_grid: empty axis");
  for (const auto& p : grid.panels)
    if (p.values.size() != cells || (!p.outlined.empty() && p.outlined.size() != cells))
      throw std::invalid_argument("render_grid: a panel's size differs from x_count * y_count");
}

// One colour scale for every panel.
ColourRange shared_range(const HeatmapGrid& grid) {
  std::vector<double> all;
  for (const auto& p : grid.panels) all.insert(all.end(), p.values.begin(), p.values.end());
  return colour_range(all);
}

int top_margin(const HeatmapGrid& grid) {
  return 16 + (grid.title.empty() ? 0 : label_height(kTitleSize) + 10) +
         (grid.subtitle.empty() ? 0 : label_height(kSmallSize) + 10) + 8;
}

}  // namespace

GridLayout layout_grid(const HeatmapGrid& grid, int panel_width, int panel_height) {
  check_grid(grid);
  if (panel_width < 8 || panel_height < 8) throw std::invalid_argument("render_grid: panels too small");
  const auto n = static_cast<int>(grid.panels.size());
  GridLayout layout;
  layout.columns = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n))));
  layout.rows = (n + layout.columns - 1) / layout.columns;
  std::vector<std::string> y_labels;
  for (const AxisTick& t : axis_ticks(grid.y_centres, panel_height, false)) y_labels.push_back(t.label);
  const int y_ticks = kGap + kTick + widest(y_labels) + 8;
  const int block_width = y_ticks + panel_width + kPanelGap;
  const int block_height = label_band() + panel_height + tick_band();
  const int left = 16 + rotated_label_width() + 4, top = top_margin(grid);
  const int right = colour_bar_margin(colour_bar_ticks(shared_range(grid)));
  // Wide enough for the subtitle, which is drawn small and never shrinks further.
  layout.width = std::max({left + layout.columns * block_width + right, label_width(grid.subtitle, kSmallSize) + 16,
                           label_width(grid.title, kSmallSize) + 16});
  layout.height = top + layout.rows * block_height + rotated_label_width() + 14;
  for (int i = 0; i < n; ++i) {
    const int x0 = left + (i % layout.columns) * block_width + y_ticks;
    const int y0 = top + (i / layout.columns) * block_height + label_band();
    layout.panels.push_back({x0, y0, x0 + panel_width, y0 + panel_height, x0 + panel_width / 2, y0 - label_band() + 2});
  }
  return layout;
}

Canvas render_grid(const HeatmapGrid& grid, int panel_width, int panel_height) {
  const GridLayout layout = layout_grid(grid, panel_width, panel_height);
  const ColourRange range = shared_range(grid);
  const std::vector<AxisTick> x_ticks = axis_ticks(grid.x_centres, panel_width, true);
  const std::vector<AxisTick> y_ticks = axis_ticks(grid.y_centres, panel_height, false);

  Canvas canvas(layout.width, layout.height);
  for (std::size_t i = 0; i < grid.panels.size(); ++i) {
    const GridLayout::Box& box = layout.panels[i];
    const PanelArea area{box.x0, box.y0, box.x1, box.y1, grid.x_centres.size(), grid.y_centres.size()};
    draw_cells(canvas, area, grid.panels[i].values, range, grid.panels[i].outlined);
    for (const double x : grid.x_markers) draw_x_marker(canvas, area, grid.x_centres, x);
    draw_x_ticks(canvas, area, x_ticks);
    draw_y_ticks(canvas, area, y_ticks);
    const FittedText label = fitted(grid.panels[i].label, panel_width);
    canvas.text(label.text, box.label_x, box.label_y, Align::kCentre, Align::kStart, label.size);
  }
  const int first_y = layout.panels.front().y0, last_y = layout.panels.back().y1;
  const int grid_x1 = layout.panels[static_cast<std::size_t>(layout.columns - 1)].x1;
  canvas.text(grid.x_label, (layout.panels.front().x0 + grid_x1) / 2.0, layout.height - 14 - rotated_label_width(),
              Align::kCentre, Align::kStart, kFontSize);
  canvas.vertical_text(grid.y_label, 16, (first_y + last_y) / 2.0, kFontSize);
  int y = 16;
  if (!grid.title.empty()) {
    const FittedText title = fitted(grid.title, layout.width - 8, kTitleSize);
    canvas.text(title.text, layout.width / 2.0, y, Align::kCentre, Align::kStart, title.size);
    y += label_height(kTitleSize) + 10;
  }
  if (!grid.subtitle.empty())
    canvas.text(grid.subtitle, layout.width / 2.0, y, Align::kCentre, Align::kStart, kSmallSize);
  draw_colour_bar(canvas, grid_x1 + 24, first_y, last_y, colour_bar_ticks(range), grid.colorbar_label);
  return canvas;
}

}  // namespace pacflow::plot
