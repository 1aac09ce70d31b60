#include "stages/io/png/comodulogram_plot.hpp"

#include <stdexcept>

#include "stages/io/png/heatmap_panel.hpp"

namespace pacflow::plot {

Image render_heatmap(const Heatmap& map, int width, int height) {
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
  constexpr int kCap = kCapHeight * kScale;
  constexpr int kRotated = kDescent * kScale;  // width of a vertical label incl. descenders
  const int top = map.title.empty() ? 20 : 16 + kCap + 22;
  const int bottom = kTick + kGap + kCap + 16 + kRotated + 14;
  const std::vector<AxisTick> y_ticks = axis_ticks(map.y_centres, height - bottom - top, false);
  std::vector<std::string> y_labels;
  for (const AxisTick& t : y_ticks) y_labels.push_back(t.label);
  const int left = 16 + kRotated + 12 + widest(y_labels) + kGap + kTick;
  const int right = colour_bar_margin(bar_ticks);
  const PanelArea area{left, top, width - right, height - bottom, nx, ny};
  if (area.x1 - area.x0 < 2 || area.y1 - area.y0 < 2)
    throw std::invalid_argument("render_heatmap: image too small for the plot layout");
  const std::vector<AxisTick> x_ticks = axis_ticks(map.x_centres, area.x1 - area.x0, true);

  Image img(width, height, kWhite);
  draw_cells(img, area, map.values, range, map.outlined);
  draw_x_ticks(img, area, x_ticks);
  draw_text(img, map.x_label, (area.x0 + area.x1) / 2, height - 14 - kRotated, Align::kCentre, Align::kStart);
  draw_y_ticks(img, area, y_ticks);
  draw_vertical_text(img, map.y_label, 16, (area.y0 + area.y1) / 2);

  // Title, centred on the plot area when it fits, else on the image, else smaller.
  if (!map.title.empty()) {
    const int tw = text_width(map.title);
    const int scale = tw <= width - 8 ? kScale : 1;
    const int cx = tw <= area.x1 - area.x0 ? (area.x0 + area.x1) / 2 : width / 2;
    draw_text(img, map.title, cx, 16, Align::kCentre, Align::kStart, scale);
  }
  draw_colour_bar(img, area.x1 + 28, area.y0, area.y1, bar_ticks, map.colorbar_label);
  return img;
}

}  // namespace pacflow::plot
