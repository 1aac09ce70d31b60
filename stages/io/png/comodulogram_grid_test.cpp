// The per-channel grid: panel placement for any count, each panel's label drawn above it, one
// colour scale for all panels, and outlines on exactly the cells asked for.
#include <gtest/gtest.h>

#include "stages/io/png/comodulogram_plot.hpp"
#include "stages/io/png/heatmap_panel.hpp"

#include <algorithm>

namespace pacflow::plot {
namespace {

HeatmapGrid comodulogram_grid_of(const std::vector<std::string>& labels, std::size_t nx = 3, std::size_t ny = 2) {
  HeatmapGrid g;
  for (std::size_t i = 0; i < nx; ++i) g.x_centres.push_back(4.0 + 2.0 * static_cast<double>(i));
  for (std::size_t i = 0; i < ny; ++i) g.y_centres.push_back(60.0 + 20.0 * static_cast<double>(i));
  for (std::size_t p = 0; p < labels.size(); ++p) {
    std::vector<double> values(nx * ny);
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = static_cast<double>(p * 10 + k);
    g.panels.push_back({labels[p], values, {}});
  }
  g.title = "PAC per channel";
  g.subtitle = "outlined: p < 0.05";
  g.x_label = "phase frequency (Hz)";
  g.y_label = "amplitude frequency (Hz)";
  g.colorbar_label = "z-score";
  return g;
}

std::vector<std::string> names(std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back("ch " + std::to_string(i));
  return out;
}

TEST(ComodulogramGrid, PlacesPanelsInANearSquareGridInsideTheImageWithoutOverlap) {
  const std::vector<std::tuple<std::size_t, int, int>> cases = {{1, 1, 1}, {3, 2, 2}, {4, 2, 2}, {5, 3, 2}, {16, 4, 4}, {17, 5, 4}};
  for (const auto& [n, columns, rows] : cases) {
    SCOPED_TRACE(n);
    const HeatmapGrid grid = comodulogram_grid_of(names(n));
    const GridLayout layout = layout_grid(grid);
    EXPECT_EQ(layout.columns, columns);
    EXPECT_EQ(layout.rows, rows);
    ASSERT_EQ(layout.panels.size(), n);
    const Image img = render_grid(grid).rasterise();
    EXPECT_EQ(img.width(), layout.width);
    EXPECT_EQ(img.height(), layout.height);
    for (std::size_t i = 0; i < n; ++i) {
      const auto& a = layout.panels[i];
      EXPECT_EQ(a.x1 - a.x0, 180);
      EXPECT_EQ(a.y1 - a.y0, 140);
      EXPECT_GT(a.x0, 0);
      EXPECT_LT(a.x1, layout.width);
      EXPECT_GT(a.label_y, 0);
      EXPECT_LT(a.y1, layout.height);
      for (std::size_t j = 0; j < i; ++j) {
        const auto& b = layout.panels[j];
        EXPECT_TRUE(a.x0 >= b.x1 || b.x0 >= a.x1 || a.y0 >= b.y1 || b.y0 >= a.y1) << i << " overlaps " << j;
      }
      if (i > 0) {  // reading order
        EXPECT_TRUE(a.y0 > layout.panels[i - 1].y0 || a.x0 > layout.panels[i - 1].x0);
      }
    }
  }
}

// Above each panel: its label, centred on it, and no other ink.
TEST(ComodulogramGrid, DrawsEachPanelsLabelAboveIt) {
  const std::vector<std::string> labels = {"Fz", "Cz", "Pz", "C3 A2", "EEG T7"};
  const HeatmapGrid grid = comodulogram_grid_of(labels);
  const GridLayout layout = layout_grid(grid);
  const Canvas figure = render_grid(grid);
  const Image img = figure.rasterise();
  for (std::size_t i = 0; i < labels.size(); ++i) {
    SCOPED_TRACE(labels[i]);
    const auto& box = layout.panels[i];
    const auto drawn = std::find_if(figure.labels().begin(), figure.labels().end(),
                                    [&](const Label& l) { return l.text == labels[i]; });
    ASSERT_NE(drawn, figure.labels().end());
    EXPECT_NEAR((drawn->x0 + drawn->x1) / 2, box.label_x, 2.0);
    EXPECT_GE(drawn->y0, box.label_y - 1);
    EXPECT_LE(drawn->y1, box.y0 - 1);
    int ink = 0, stray = 0;
    for (int y = box.label_y - 4; y < box.y0 - 2; ++y)
      for (int x = box.x0; x < box.x1; ++x) {
        const Rgb c = img.at(x, y);
        if (c == kWhite) continue;
        const bool inside = x >= drawn->x0 - 1 && x <= drawn->x1 + 1 && y >= drawn->y0 - 1 && y <= drawn->y1 + 1;
        (inside ? ink : stray) += 1;
      }
    EXPECT_GT(ink, 20);
    EXPECT_EQ(stray, 0);
  }
}

TEST(ComodulogramGrid, ColoursEveryPanelOnOneSharedScale) {
  HeatmapGrid grid = comodulogram_grid_of({"low", "high"}, 2, 2);
  grid.panels[0].values = {0, 0, 0, 0};
  grid.panels[1].values = {1, 1, 1, 1};
  const GridLayout layout = layout_grid(grid);
  const Image img = render_grid(grid).rasterise();
  for (int p = 0; p < 2; ++p) {
    const auto& box = layout.panels[static_cast<std::size_t>(p)];
    EXPECT_EQ(img.at((box.x0 + box.x1) / 2 - 20, (box.y0 + box.y1) / 2 - 20), viridis(p));
  }
}

TEST(ComodulogramGrid, OutlinesExactlyTheCellsMarked) {
  HeatmapGrid grid = comodulogram_grid_of({"a", "b"}, 3, 2);
  grid.panels[0].outlined = {false, false, false, true, false, false};  // ix = 1, iy = 1
  grid.panels[1].outlined = {true, false, false, false, false, true};   // (0, 0) and (2, 1)
  const GridLayout layout = layout_grid(grid);
  const Image img = render_grid(grid).rasterise();
  for (std::size_t p = 0; p < 2; ++p) {
    const auto& box = layout.panels[p];
    const PanelArea area{box.x0, box.y0, box.x1, box.y1, 3, 2};
    for (std::size_t ix = 0; ix < 3; ++ix)
      for (std::size_t iy = 0; iy < 2; ++iy) {
        int framed = 0;
        for (int y = area.y_edge(iy + 1); y < area.y_edge(iy); ++y)
          for (int x = area.x_edge(ix); x < area.x_edge(ix + 1); ++x) framed += img.at(x, y) == kSignificant ? 1 : 0;
        const bool marked = grid.panels[p].outlined[ix * 2 + iy];
        EXPECT_EQ(framed > 0, marked) << "panel " << p << " cell " << ix << "," << iy;
        if (marked) {
          // A frame kSignificantWidth wide just inside the cell edges: its perimeter, never its middle.
          const int w = area.x_edge(ix + 1) - area.x_edge(ix), h = area.y_edge(iy) - area.y_edge(iy + 1);
          EXPECT_EQ(framed, w * h - (w - 2 * kSignificantWidth) * (h - 2 * kSignificantWidth));
        }
      }
  }
}

// Significance is drawn as a contour: around a region of neighbouring cells, never between two of them.
TEST(ComodulogramGrid, AContourSurroundsARegionOfSignificantCellsNotEachCell) {
  HeatmapGrid grid = comodulogram_grid_of({"a"}, 3, 2);
  grid.panels[0].outlined = {true, true, false, false, false, false};  // (0, 0) and (0, 1): one column
  const GridLayout layout = layout_grid(grid);
  const Image img = render_grid(grid).rasterise();
  const auto& box = layout.panels[0];
  const PanelArea area{box.x0, box.y0, box.x1, box.y1, 3, 2};
  const int mid_x = (area.x_edge(0) + area.x_edge(1)) / 2, between = area.y_edge(1);
  for (int y = between - kSignificantWidth - 1; y <= between + kSignificantWidth; ++y)
    EXPECT_NE(img.at(mid_x, y), kSignificant) << "no line between the two cells, at y " << y;
  EXPECT_EQ(img.at(area.x_edge(0) + 1, between), kSignificant) << "the region's left side runs past the shared edge";
  EXPECT_EQ(img.at(area.x_edge(1) - 1, between), kSignificant) << "so does its right side";
  EXPECT_EQ(img.at(mid_x, area.y_edge(2)), kSignificant) << "its top";
  EXPECT_EQ(img.at(mid_x, area.y_edge(0) - 1), kSignificant) << "its bottom";
  EXPECT_NE(img.at(area.x_edge(1) + 1, between), kSignificant) << "the next column is outside";
}

TEST(ComodulogramGrid, RejectsPanelsOfTheWrongSize) {
  HeatmapGrid grid = comodulogram_grid_of({"a"}, 2, 2);
  grid.panels[0].values.pop_back();
  EXPECT_THROW(render_grid(grid), std::invalid_argument);
  EXPECT_THROW(render_grid(comodulogram_grid_of({})), std::invalid_argument);
  HeatmapGrid outlines = comodulogram_grid_of({"a"}, 2, 2);
  outlines.panels[0].outlined = {true};
  EXPECT_THROW(render_grid(outlines), std::invalid_argument);
}

// A marker (ERPAC's event) is a line across every panel where its x falls between the column
// centres (4, 6, 8 here: 5 is the edge between the first two columns); outside them none is drawn.
TEST(ComodulogramGrid, DrawsMarkersAcrossEveryPanelAtTheirXAndNoneOutside) {
  HeatmapGrid grid = comodulogram_grid_of(names(2));
  grid.x_markers = {5.0, 100.0};
  const Image marked = render_grid(grid).rasterise();
  grid.x_markers.clear();
  const Image plain = render_grid(grid).rasterise();
  const GridLayout layout = layout_grid(grid);
  for (const auto& box : layout.panels) {
    const PanelArea area{box.x0, box.y0, box.x1, box.y1, 3, 2};
    const int edge = area.x_edge(1), mid_y = (box.y0 + box.y1) / 2;
    for (int y : {box.y0, mid_y, box.y1 - 1}) {
      EXPECT_EQ(marked.at(edge, y), kMarker) << "y " << y;
      EXPECT_EQ(marked.at(edge - 1, y), kMarker) << "y " << y;
    }
    EXPECT_EQ(marked.at(edge - 3, mid_y), plain.at(edge - 3, mid_y)) << "the line is " << kMarkerWidth << " pixels";
    EXPECT_EQ(marked.at(box.x1 - 2, mid_y), plain.at(box.x1 - 2, mid_y)) << "100 lies outside: no line";
  }
}

}  // namespace
}  // namespace pacflow::plot
