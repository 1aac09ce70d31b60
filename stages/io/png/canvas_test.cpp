// Figures as a reader gets them: one drawing in PNG, SVG and PDF (the same bytes every time, the
// PDF's text searchable), and every figure kind laid out with no label over another or off the page.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "stages/io/png/comodulogram_plot.hpp"
#include "stages/io/png/erpac_plot.hpp"
#include "stages/io/png/plot_drawing.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow::plot {
namespace {

namespace fs = std::filesystem;

HeatmapGrid grid_of(std::size_t panels, std::size_t nx, std::size_t ny, const std::string& label_stem) {
  HeatmapGrid g;
  for (std::size_t i = 0; i < nx; ++i) g.x_centres.push_back(2.0 + 1.5 * static_cast<double>(i));
  for (std::size_t i = 0; i < ny; ++i) g.y_centres.push_back(30.0 + 7.3 * static_cast<double>(i));
  for (std::size_t p = 0; p < panels; ++p) {
    std::vector<double> values(nx * ny);
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = -3.2 + 0.37 * static_cast<double>((p * 7 + k) % 23);
    g.panels.push_back({label_stem + std::to_string(p), values, std::vector<bool>(values.size(), p % 2 == 0)});
  }
  g.title = "z-score of each channel's mean over 40 epochs against epoch permutations";
  g.subtitle = "outlined: p of the mean over 40 epochs (maxstat over every channel's cells, 1000 epoch permutations) < 0.05";
  g.x_label = "phase frequency (Hz)";
  g.y_label = "amplitude frequency (Hz)";
  g.colorbar_label = "z-score";
  return g;
}

Heatmap map_of(std::size_t nx, std::size_t ny) {
  Heatmap m;
  for (std::size_t i = 0; i < nx; ++i) m.x_centres.push_back(2.0 + 0.5 * static_cast<double>(i));
  for (std::size_t i = 0; i < ny; ++i) m.y_centres.push_back(20.0 + 2.5 * static_cast<double>(i));
  for (std::size_t k = 0; k < nx * ny; ++k) m.values.push_back(1e-4 * static_cast<double>(k % 17));
  m.title = "Tort modulation index, mean over 40 epochs x 64 channels";
  m.x_label = "phase frequency (Hz)";
  m.y_label = "amplitude frequency (Hz)";
  m.colorbar_label = "MI";
  return m;
}

bool overlap(const Label& a, const Label& b) {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

// Every label inside the figure and clear of every other.
void expect_readable(const Canvas& figure, const std::string& what) {
  SCOPED_TRACE(what);
  const std::vector<Label>& labels = figure.labels();
  ASSERT_FALSE(labels.empty());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const Label& a = labels[i];
    EXPECT_TRUE(a.x0 >= 0 && a.y0 >= 0 && a.x1 <= figure.width() && a.y1 <= figure.height())
        << '"' << a.text << "\" leaves the figure: " << a.x0 << "," << a.y0 << " - " << a.x1 << "," << a.y1;
    for (std::size_t j = 0; j < i; ++j)
      EXPECT_FALSE(overlap(a, labels[j])) << '"' << a.text << "\" overlaps \"" << labels[j].text << '"';
  }
}

TEST(FigureLayout, NoLabelOverlapsAnotherOrLeavesTheFigure) {
  expect_readable(render_heatmap(map_of(10, 10)), "10 x 10 map");
  expect_readable(render_heatmap(map_of(50, 50)), "50 x 50 map");
  expect_readable(render_heatmap(map_of(3, 2), 400, 300), "small map");
  for (const std::size_t panels : {1, 2, 5, 16, 64}) {
    expect_readable(render_grid(grid_of(panels, 10, 10, "ch ")), std::to_string(panels) + " panels");
    expect_readable(render_grid(grid_of(panels, 30, 40, "EEG Fp1-A2 referenced ")),
                    std::to_string(panels) + " panels with long names");
  }
  // ERPAC: a panel per phase band, 120 time columns, the event line.
  ErpacSums sums;
  sums.reset(3, 20, 500);
  std::vector<float> rho(sums.sum.size()), p(sums.sum.size(), 0.5f);
  for (std::size_t k = 0; k < rho.size(); ++k) rho[k] = static_cast<float>(k % 13) / 13.0f;
  sums.add(rho, p, 0.05);
  ErpacAxes axes{{}, {4, 6, 8}, {}};
  for (int t = 0; t < 500; ++t) axes.times_s.push_back(-0.5 + t / 500.0);
  for (int a = 0; a < 20; ++a) axes.amp_centres_hz.push_back(40 + 5 * a);
  HeatmapGrid erpac = erpac_grid(sums, axes, 1, kErpacColumns);
  erpac.title = "ERPAC (circular-linear ρ across 200 epochs) per phase band, mean over 64 channels";
  erpac.subtitle = "outlined: corrected p (erpac_pvalues) < 0.05 in at least 7 of 64 channels; white line: the event, t = 0";
  expect_readable(render_grid(erpac, 360, 180), "erpac");
}

TEST(FigureLayout, ALabelTooLongForItsPanelIsShortenedNotDrawnOverItsNeighbours) {
  HeatmapGrid grid = grid_of(4, 5, 5, "");
  grid.panels[1].label = std::string(200, 'W');
  const Canvas figure = render_grid(grid);
  expect_readable(figure, "a 200-character label");
  const auto drawn = std::find_if(figure.labels().begin(), figure.labels().end(),
                                  [](const Label& l) { return l.text.find("WWW") != std::string::npos; });
  ASSERT_NE(drawn, figure.labels().end());
  EXPECT_LT(drawn->text.size(), 200u);
  EXPECT_NE(drawn->text.find("\u2026"), std::string::npos) << "an ellipsis says it was shortened";
}

TEST(Figure, EveryFormatFromOneDrawingTheSameBytesEveryTime) {
  const HeatmapGrid grid = grid_of(3, 4, 5, "ch ");
  const Canvas figure = render_grid(grid);
  const std::string png = figure.encode(FigureFormat::kPng, "png");
  const std::string svg = figure.encode(FigureFormat::kSvg, "svg");
  const std::string pdf = figure.encode(FigureFormat::kPdf, "pdf");
  EXPECT_TRUE(decode_png(png, "png").rgb() == figure.rasterise().rgb());
  const Canvas again = render_grid(grid);
  EXPECT_TRUE(again.encode(FigureFormat::kPng, "png") == png);
  EXPECT_TRUE(again.encode(FigureFormat::kSvg, "svg") == svg) << "cairo's process-wide ids are renumbered";
  EXPECT_TRUE(again.encode(FigureFormat::kPdf, "pdf") == pdf) << "no creation date";
  EXPECT_EQ(pdf.find("CreationDate"), std::string::npos);

  EXPECT_NE(svg.find("width=\"" + std::to_string(figure.width()) + "pt\""), std::string::npos);
  // Cells are one image per panel (and one for the colour bar), kept blocky wherever it is shown.
  std::size_t images = 0, hinted = 0;
  for (std::size_t at = svg.find("<image "); at != std::string::npos; at = svg.find("<image ", at + 1)) {
    ++images;
    const std::string hint = "<image style=\"image-rendering:pixelated\"";
    hinted += svg.compare(at, hint.size(), hint) == 0 ? 1 : 0;
  }
  EXPECT_EQ(images, grid.panels.size() + 1);
  EXPECT_EQ(hinted, images);
  EXPECT_EQ(svg.find("id=\"image4\""), svg.rfind("id=\"image")) << "images numbered 1 to 4";
}

// A label that is not UTF-8 (an EDF channel name in Latin-1: "\xB5V") is drawn with U+FFFD for its bad
// bytes in every format, never failing the figure.
TEST(Figure, TextThatIsNotUtf8IsDrawnWithReplacementCharacters) {
  Canvas figure(200, 100);
  figure.text("Fp1 \xB5V", 10, 10, Align::kStart, Align::kStart, 13);
  figure.vertical_text("\xFF\xFE", 150, 50, 13);
  EXPECT_EQ(figure.labels().front().text, "Fp1 \uFFFDV");
  for (const FigureFormat f : {FigureFormat::kPng, FigureFormat::kSvg, FigureFormat::kPdf})
    EXPECT_NO_THROW(figure.encode(f, "latin-1 label"));
}

// The PDF holds its labels as text (searchable, selectable), read back by poppler's pdftotext.
TEST(Figure, ThePdfHoldsEveryLabelAsText) {
  const testing::ScratchDir dir("figure_pdf");
  const Canvas figure = render_heatmap(map_of(10, 10));
  write_figure(figure, dir.path() / "map.pdf");
  const std::string command = "pdftotext -raw " + (dir.path() / "map.pdf").string() + " - 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), &pclose);
  ASSERT_TRUE(pipe);
  std::string text;
  std::array<char, 4096> buffer{};
  for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), pipe.get())) > 0;) text.append(buffer.data(), n);
  if (pclose(pipe.release()) != 0 && text.empty())
    GTEST_SKIP() << "pdftotext (Debian's poppler-utils, installed by tools/setup.sh --tests) is not available";
  // pdftotext breaks vertical text into lines: compared with every run of white space as one space.
  const auto words = [](const std::string& s) {
    std::string out;
    for (const char c : s) {
      const bool space = c == ' ' || c == '\n' || c == '\r' || c == '\f';
      if (!space) out.push_back(c);
      else if (!out.empty() && out.back() != ' ') out.push_back(' ');
    }
    return out;
  };
  const std::string all = words(text);
  for (const Label& label : figure.labels()) EXPECT_NE(all.find(words(label.text)), std::string::npos) << label.text;
}

}  // namespace
}  // namespace pacflow::plot
