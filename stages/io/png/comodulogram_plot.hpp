// Comodulogram heat-map rendering to PNG (viridis colour map, axes, colour bar).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace pacflow::plot {

struct Heatmap {
  std::vector<double> values;     // row-major [x_count][y_count]: values[ix * y_count + iy]
  std::vector<double> x_centres;  // e.g. phase-band centre frequencies in Hz (x axis), size x_count
  std::vector<double> y_centres;  // e.g. amplitude-band centre frequencies in Hz (y axis), size y_count
  std::string title;              // e.g. "PAC z-score, mean over 8 epochs x 16 channels"
  std::string x_label;            // e.g. "phase frequency (Hz)"
  std::string y_label;            // e.g. "amplitude frequency (Hz)"
  std::string colorbar_label;     // e.g. "z-score"
};

struct Rgb {
  std::uint8_t r, g, b;
  friend bool operator==(const Rgb&, const Rgb&) = default;
};

// 8-bit RGB raster, row-major, origin at the top-left.
class Image {
 public:
  // Throws std::invalid_argument unless width and height are positive.
  Image(int width, int height, Rgb fill);

  int width() const { return width_; }
  int height() const { return height_; }
  // Precondition: 0 <= x < width(), 0 <= y < height().
  Rgb at(int x, int y) const;
  // Out-of-range pixels are ignored, so callers may draw partially off-canvas.
  void set(int x, int y, Rgb c);
  // Tightly packed RGB bytes, width() * height() * 3.
  const std::vector<std::uint8_t>& rgb() const { return rgb_; }

 private:
  int width_;
  int height_;
  std::vector<std::uint8_t> rgb_;
};

// Viridis colour map; t is clamped to [0, 1] (NaN maps to 0).
Rgb viridis(double t);

// Renders the heat map with axes, ticks, labels, title and a colour bar.
// Colours span [min, max] of the finite values. Throws std::invalid_argument
// for inconsistent sizes, empty axes or an image too small for the layout.
Image render_heatmap(const Heatmap& map, int width = 900, int height = 700);

// Encodes `image` as PNG and writes it atomically (temp file in the same
// directory, then rename). Throws std::runtime_error naming `path` on failure.
void write_png(const Image& image, const std::filesystem::path& path);

}  // namespace pacflow::plot
