#include "stages/io/png/comodulogram_plot.hpp"

#include <stdexcept>

#include "stages/io/png/heatmap_panel.hpp"

namespace pacflow::plot {

Canvas render_heatmap(const Heatmap& map, int width, int height) {
  const std::size_t nx = map.x_centres.size();
  const std::size_t ny = map.y_centres.size();
  if (nx == 0 || ny == 0) throw std::invalid_argument("render_heatmap: empty axis");
  if (map.values.size() != nx * ny)
    throw std::invalid_argument("render_heatmap: values.size() != x_count * y_count");
  if (!map.outlined.empty() && map.outlined.size() != nx * ny)
    throw std::invalid_argument("render_heatmap: outlined.size() != x_count * y_count");

  const ColourRange range = colour_range(map.values);
  const std::vector<ColourBarTick> bar_ticks = colour_bar_ticks(range);

  // Margins, outside in: title | y label, y tick labels, ticks | colour bar, its labels and label.
  const int cap = label_height(), rotated = rotated_label_width();
  const int top = map.title.empty() ? 20 : 16 + label_height(kTitleSize) + 22;
  const int bottom = kTick + kGap + cap + 16 + rotated + 14;
  const std::vector<AxisTick> y_ticks = axis_ticks(map.y_centres, height - bottom - top, false);
  std::vector<std::string> y_labels;
  for (const AxisTick& t : y_ticks) y_labels.push_back(t.label);
  const int left = 16 + rotated + 12 + widest(y_labels) + kGap + kTick;
  const int right = colour_bar_margin(bar_ticks);
  const PanelArea area{left, top, width - right, height - bottom, nx, ny};
  if (area.x1 - area.x0 < 2 || area.y1 - area.y0 < 2)
    throw std::invalid_argument("render_heatmap: image too small for the plot layout");
  const std::vector<AxisTick> x_ticks = axis_ticks(map.x_centres, area.x1 - area.x0, true);

  Canvas canvas(width, height);
  draw_cells(canvas, area, map.values, range, map.outlined);
  draw_x_ticks(canvas, area, x_ticks);
  canvas.text(map.x_label, (area.x0 + area.x1) / 2.0, height - 14 - rotated, Align::kCentre, Align::kStart, kFontSize);
  draw_y_ticks(canvas, area, y_ticks);
  canvas.vertical_text(map.y_label, 16, (area.y0 + area.y1) / 2.0, kFontSize);

  // Title, centred on the plot area when it fits, else on the figure, else smaller.
  if (!map.title.empty()) {
    const FittedText title = fitted(map.title, width - 8, kTitleSize);
    const double cx = label_width(title.text, title.size) <= area.x1 - area.x0 ? (area.x0 + area.x1) / 2.0 : width / 2.0;
    canvas.text(title.text, cx, 16, Align::kCentre, Align::kStart, title.size);
  }
  draw_colour_bar(canvas, area.x1 + 24, area.y0, area.y1, bar_ticks, map.colorbar_label);
  return canvas;
}

}  // namespace pacflow::plot
