#include "stages/io/png/heatmap_panel.hpp"

#include <cmath>

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

void draw_x_ticks(Image& img, const PanelArea& area, const std::vector<std::string>& labels) {
  for (const std::size_t ix : tick_cells(area.nx, area.cell_width(), widest(labels))) {
    const int x = (area.x_edge(ix) + area.x_edge(ix + 1)) / 2;
    fill(img, x, area.y1 + 1, x + 1, area.y1 + 1 + kTick, kBlack);
    draw_text(img, labels[ix], x, area.y1 + 1 + kTick + kGap, Align::kCentre, Align::kStart);
  }
}

void draw_y_ticks(Image& img, const PanelArea& area, const std::vector<std::string>& labels) {
  for (const std::size_t iy : tick_cells(area.ny, area.cell_height(), kCapHeight * kScale)) {
    const int y = (area.y_edge(iy) + area.y_edge(iy + 1)) / 2;
    fill(img, area.x0 - 1 - kTick, y, area.x0 - 1, y + 1, kBlack);
    draw_text(img, labels[iy], area.x0 - 1 - kTick - kGap, y, Align::kEnd, Align::kCentre);
  }
}

}  // namespace pacflow::plot
