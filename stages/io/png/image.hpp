#pragma once
// An 8-bit RGB raster (what a PNG figure shows, for checks) and the viridis colour map.
#include <cstdint>
#include <vector>

namespace pacflow::plot {

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

inline constexpr Rgb kWhite{255, 255, 255};
inline constexpr Rgb kBlack{0, 0, 0};
inline constexpr Rgb kNanGrey{211, 211, 211};  // matplotlib "lightgrey"

// Viridis colour map; t is clamped to [0, 1] (NaN maps to 0).
Rgb viridis(double t);

}  // namespace pacflow::plot
