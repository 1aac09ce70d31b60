#include "stages/io/png/comodulogram_plot.hpp"
#include "stages/io/png/heatmap_panel.hpp"
#include "stages/io/png/plot_drawing.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>


namespace pacflow::plot {
namespace {

namespace fs = std::filesystem;

// Centroid of all pixels of exactly colour `c`. A heat-map cell is a large
// solid block, so it dominates the centroid even though the same colour also
// appears in a row or two of the colour bar.
struct Blob {
  double x = 0, y = 0;
  long count = 0;
};

Blob find_colour(const Image& img, Rgb c) {
  Blob b;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x)
      if (img.at(x, y) == c) b.x += x, b.y += y, ++b.count;
  if (b.count > 0) b.x /= static_cast<double>(b.count), b.y /= static_cast<double>(b.count);
  return b;
}

Rgb at_blob(const Image& img, const Blob& b) {
  return img.at(static_cast<int>(std::lround(b.x)), static_cast<int>(std::lround(b.y)));
}

Heatmap small_map(std::size_t nx, std::size_t ny, std::vector<double> values) {
  Heatmap m;
  m.values = std::move(values);
  for (std::size_t i = 0; i < nx; ++i) m.x_centres.push_back(4.0 + 2.0 * static_cast<double>(i));
  for (std::size_t i = 0; i < ny; ++i) m.y_centres.push_back(60.0 + 20.0 * static_cast<double>(i));
  m.title = "PAC z-score";
  m.x_label = "phase frequency (Hz)";
  m.y_label = "amplitude frequency (Hz)";
  m.colorbar_label = "z-score";
  return m;
}

// RAII temporary directory.
struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("pacflow_plot_test_" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename());
  return out;
}

TEST(Viridis, MatchesMatplotlibEndpointsAndMidpoint) {
  EXPECT_EQ(viridis(0.0), (Rgb{68, 1, 84}));      // #440154
  EXPECT_EQ(viridis(1.0), (Rgb{253, 231, 37}));   // #fde725
  EXPECT_EQ(viridis(128.0 / 255.0), (Rgb{33, 145, 140}));  // #21918c
  EXPECT_EQ(viridis(-3.0), viridis(0.0));
  EXPECT_EQ(viridis(7.0), viridis(1.0));
  EXPECT_EQ(viridis(std::numeric_limits<double>::quiet_NaN()), viridis(0.0));
}

TEST(Image, IgnoresOutOfRangeWritesAndRejectsBadSizes) {
  Image img(3, 2, Rgb{1, 2, 3});
  img.set(-1, 0, Rgb{9, 9, 9});
  img.set(3, 1, Rgb{9, 9, 9});
  img.set(2, 1, Rgb{7, 8, 9});
  EXPECT_EQ(img.at(0, 0), (Rgb{1, 2, 3}));
  EXPECT_EQ(img.at(2, 1), (Rgb{7, 8, 9}));
  EXPECT_EQ(img.rgb().size(), 3u * 2u * 3u);
  EXPECT_THROW(Image(0, 5, Rgb{0, 0, 0}), std::invalid_argument);
}

TEST(Heatmap, PutsHighestCellInBrightestAndLowestInDarkestColour) {
  // 3 x 3, maximum at (ix=2, iy=0), minimum at (ix=0, iy=2).
  std::vector<double> v(9, 0.5);
  v[2 * 3 + 0] = 2.0;
  v[0 * 3 + 2] = -1.0;
  v[1 * 3 + 1] = 0.25;
  const Image img = render_heatmap(small_map(3, 3, v)).rasterise();

  const Blob hi = find_colour(img, viridis(1.0));
  const Blob lo = find_colour(img, viridis(0.0));
  ASSERT_GT(hi.count, 5000);
  ASSERT_GT(lo.count, 5000);
  EXPECT_EQ(at_blob(img, hi), viridis(1.0));
  EXPECT_EQ(at_blob(img, lo), viridis(0.0));
  EXPECT_GT(hi.x, lo.x);  // ix = 2 is right of ix = 0
  EXPECT_GT(hi.y, lo.y);  // iy = 0 is below iy = 2 (pixel y grows downwards)

  // The centre cell (value 0.25 of the range [-1, 2]) sits between them.
  const Blob mid = find_colour(img, viridis((0.25 + 1.0) / 3.0));
  ASSERT_GT(mid.count, 5000);
  EXPECT_NEAR(mid.x, (hi.x + lo.x) / 2, 3.0);
  EXPECT_NEAR(mid.y, (hi.y + lo.y) / 2, 3.0);
}

TEST(Heatmap, DrawsLowAmplitudeFrequenciesAtTheBottom) {
  const Image img = render_heatmap(small_map(1, 2, {0.0, 1.0})).rasterise();  // iy=0 low, iy=1 high
  const Blob low_row = find_colour(img, viridis(0.0));
  const Blob high_row = find_colour(img, viridis(1.0));
  ASSERT_GT(low_row.count, 5000);
  ASSERT_GT(high_row.count, 5000);
  EXPECT_GT(low_row.y, high_row.y);
  EXPECT_NEAR(low_row.x, high_row.x, 3.0);
}

TEST(Heatmap, DrawsNanCellsLightGreyAndConstantMapsMidRange) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Image with_nan = render_heatmap(small_map(2, 2, {1.0, nan, 2.0, 3.0})).rasterise();
  EXPECT_GT(find_colour(with_nan, Rgb{211, 211, 211}).count, 5000);

  const Image constant = render_heatmap(small_map(2, 2, {4.0, 4.0, 4.0, 4.0})).rasterise();
  const Blob mid = find_colour(constant, viridis(0.5));
  EXPECT_GT(mid.count, 4 * 5000);
}

TEST(Heatmap, HasFrameTitleTextAndColourBar) {
  const Image img = render_heatmap(small_map(4, 3, std::vector<double>(12, 0.0)), 900, 700).rasterise();
  const Rgb white{255, 255, 255};
  const Rgb black{0, 0, 0};

  // Frame: some row holds a long run of black pixels.
  int longest = 0;
  for (int y = 0; y < img.height(); ++y) {
    int run = 0;
    for (int x = 0; x < img.width(); ++x) {
      run = img.at(x, y) == black ? run + 1 : 0;
      longest = std::max(longest, run);
    }
  }
  EXPECT_GT(longest, img.width() / 2);

  // Title: dark (anti-aliased) ink in the top band; the corners stay white.
  int title_pixels = 0;
  for (int y = 0; y < 45; ++y)
    for (int x = 0; x < img.width(); ++x) {
      const Rgb c = img.at(x, y);
      title_pixels += c.r < 100 && c.g < 100 && c.b < 100 ? 1 : 0;
    }
  EXPECT_GT(title_pixels, 100);
  EXPECT_EQ(img.at(0, 0), white);
  EXPECT_EQ(img.at(img.width() - 1, img.height() - 1), white);

  // Colour bar: a full viridis gradient in the right quarter even though every cell is equal.
  std::set<std::tuple<int, int, int>> colours;
  for (int y = 0; y < img.height(); ++y)
    for (int x = img.width() * 3 / 4; x < img.width(); ++x) {
      const Rgb c = img.at(x, y);
      colours.emplace(c.r, c.g, c.b);
    }
  EXPECT_GT(colours.size(), 100u);
  EXPECT_GT(find_colour(img, viridis(1.0)).count, 0);
  EXPECT_GT(find_colour(img, viridis(0.0)).count, 0);
}

TEST(Heatmap, RendersManyCellsAndSmallImages) {
  std::vector<double> v(40 * 30);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<double>(i));
  EXPECT_NO_THROW(render_heatmap(small_map(40, 30, v), 900, 700));
  EXPECT_NO_THROW(render_heatmap(small_map(2, 2, {0, 1, 2, 3}), 400, 300));
  EXPECT_THROW(render_heatmap(small_map(2, 2, {0, 1, 2, 3}), 60, 40), std::invalid_argument);
}

TEST(Heatmap, RejectsInconsistentSizes) {
  EXPECT_THROW(render_heatmap(small_map(2, 3, {1, 2, 3, 4, 5})), std::invalid_argument);
  EXPECT_THROW(render_heatmap(small_map(0, 3, {})), std::invalid_argument);
  EXPECT_THROW(render_heatmap(small_map(3, 0, {})), std::invalid_argument);
}

TEST(WriteFigure, WritesEachFormatAtomicallyWithoutLeftovers) {
  TempDir dir;
  const Canvas figure = render_heatmap(small_map(2, 2, {0, 1, 2, 3}), 400, 300);
  write_figure(figure, dir.path / "comod.png");
  write_figure(figure, dir.path / "comod.png");  // overwriting an existing file works too
  write_figure(figure, dir.path / "comod.SVG");
  write_figure(figure, dir.path / "comod.pdf");
  EXPECT_EQ(entries(dir.path).size(), 3u);

  const auto read = [&](const char* name) {
    std::ifstream in(dir.path / name, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string png = read("comod.png");
  EXPECT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n");
  const Image decoded = decode_png(png, "comod.png");
  EXPECT_EQ(decoded.width(), 400);
  EXPECT_EQ(decoded.height(), 300);
  EXPECT_TRUE(decoded.rgb() == figure.rasterise().rgb()) << "the PNG is the drawing, pixel for pixel";
  EXPECT_NE(read("comod.SVG").find("<svg"), std::string::npos);
  EXPECT_EQ(read("comod.pdf").substr(0, 5), "%PDF-");
  EXPECT_THROW(write_figure(figure, dir.path / "comod.jpg"), std::runtime_error);
}

TEST(WriteFigure, ThrowsNamingThePathAndLeavesNoTempFile) {
  TempDir dir;
  const fs::path missing = dir.path / "no_such_dir" / "x.png";
  try {
    write_figure(Canvas(4, 4), missing);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
  }
  // Target is a directory: encoding and the temp file succeed, the rename fails.
  fs::create_directory(dir.path / "taken.png");
  fs::create_directory(dir.path / "taken.png" / "child");  // non-empty, so rename cannot replace it
  EXPECT_THROW(write_figure(Canvas(4, 4), dir.path / "taken.png"), std::runtime_error);
  EXPECT_EQ(entries(dir.path), std::vector<fs::path>{"taken.png"});
}

// Axis ticks are round frequencies placed between the band centres they fall between (60, 80, 100
// Hz on bands centred at 60, 71.1, 82.2 …), as many as fit; an axis of one band labels its centre.
TEST(AxisTicks, RoundValuesBetweenTheCentresAsManyAsFit) {
  std::vector<double> amp;
  for (int k = 0; k < 10; ++k) amp.push_back(60 + 100.0 * k / 9);  // 60, 71.1, 82.2, … 160
  const std::vector<AxisTick> y = axis_ticks(amp, 300, false);
  std::vector<std::string> labels;
  for (const AxisTick& t : y) labels.push_back(t.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"60", "80", "100", "120", "140", "160"}));
  EXPECT_NEAR(y[0].position, 0.5, 1e-12);      // the first centre
  EXPECT_NEAR(y[1].position, 2.3, 1e-9);       // 80 Hz: 1.8 bands of 11.1 Hz past the first centre
  EXPECT_NEAR(y.back().position, 9.5, 1e-12);  // the last centre
  EXPECT_LE(axis_ticks(amp, 60, false).size(), 2u) << "60 pixels hold two labels";
  std::vector<std::string> x_labels;
  for (const AxisTick& t : axis_ticks({4, 6, 8, 10, 12, 14, 16, 18, 20}, 180, true)) x_labels.push_back(t.label);
  EXPECT_EQ(x_labels, (std::vector<std::string>{"5", "10", "15", "20"}));
  const std::vector<AxisTick> one = axis_ticks({82.2}, 180, true);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].label, "82.2");
  EXPECT_EQ(one[0].position, 0.5);
  EXPECT_TRUE(std::isnan(position_in_cells({3, 2, 1}, 2))) << "centres that do not increase";
}

// The colour bar's ticks are round numbers at their places, never the range's odd ends.
TEST(ColourBar, TicksAreRoundValuesInsideTheRangeAtTheirPlaces) {
  const auto labels = [](ColourRange range) {
    std::vector<std::string> out;
    for (const ColourBarTick& t : colour_bar_ticks(range)) out.push_back(t.label);
    return out;
  };
  EXPECT_EQ(labels({0.0362, 0.347}), (std::vector<std::string>{"0.1", "0.2", "0.3"}));
  EXPECT_EQ(labels({-3.08, 2.89}), (std::vector<std::string>{"-2", "0", "2"}));
  EXPECT_EQ(labels({0.5, 1.5}), (std::vector<std::string>{"0.6", "0.8", "1", "1.2", "1.4"}));
  EXPECT_EQ(labels({60, 180}), (std::vector<std::string>{"100", "150"}));
  const std::vector<ColourBarTick> ticks = colour_bar_ticks({0.0362, 0.347});
  EXPECT_NEAR(ticks[0].fraction, (0.1 - 0.0362) / (0.347 - 0.0362), 1e-12);
  EXPECT_NEAR(ticks[2].fraction, (0.3 - 0.0362) / (0.347 - 0.0362), 1e-12);
  for (const ColourRange range : {ColourRange{-1e-12, 3e-12}, ColourRange{2.0, 2.0000001}, ColourRange{-7.5, 1e6}}) {
    const std::vector<ColourBarTick> t = colour_bar_ticks(range);
    EXPECT_GE(t.size(), 2u);
    EXPECT_LE(t.size(), 5u);
    for (std::size_t k = 0; k < t.size(); ++k) {
      EXPECT_GE(t[k].fraction, 0.0);
      EXPECT_LE(t[k].fraction, 1.0);
      if (k > 0) {
        EXPECT_GT(t[k].fraction, t[k - 1].fraction);
      }
    }
  }
}

}  // namespace
}  // namespace pacflow::plot
