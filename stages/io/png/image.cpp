#include "stages/io/png/image.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace pacflow::plot {
namespace {

struct ControlPoint {
  double index, r, g, b;  // index into matplotlib's 256-entry viridis table
};

// Every 16th entry of matplotlib's viridis table (plus the last one).
constexpr std::array<ControlPoint, 17> kViridis{{
    {0, 0.267004, 0.004874, 0.329415},   {16, 0.282327, 0.094955, 0.417331},
    {32, 0.278826, 0.175490, 0.483397},  {48, 0.258965, 0.251537, 0.524736},
    {64, 0.229739, 0.322361, 0.545706},  {80, 0.199430, 0.387607, 0.554642},
    {96, 0.172719, 0.448791, 0.557885},  {112, 0.149039, 0.508051, 0.557250},
    {128, 0.127568, 0.566949, 0.550556}, {144, 0.120638, 0.625828, 0.533488},
    {160, 0.157851, 0.683765, 0.501686}, {176, 0.246070, 0.738910, 0.452024},
    {192, 0.369214, 0.788888, 0.382914}, {208, 0.515992, 0.831158, 0.294279},
    {224, 0.678489, 0.863742, 0.189503}, {240, 0.845561, 0.887322, 0.099702},
    {255, 0.993248, 0.906157, 0.143936},
}};

std::uint8_t to_byte(double c) {
  return static_cast<std::uint8_t>(std::lround(std::clamp(c, 0.0, 1.0) * 255.0));
}

}  // namespace

Image::Image(int width, int height, Rgb fill) : width_(width), height_(height) {
  if (width <= 0 || height <= 0)
    throw std::invalid_argument("Image: width and height must be positive");
  rgb_.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3);
  for (std::size_t i = 0; i < rgb_.size(); i += 3) {
    rgb_[i] = fill.r;
    rgb_[i + 1] = fill.g;
    rgb_[i + 2] = fill.b;
  }
}

Rgb Image::at(int x, int y) const {
  if (x < 0 || y < 0 || x >= width_ || y >= height_)
    throw std::out_of_range("Image::at: pixel outside the image");
  const std::size_t i = (static_cast<std::size_t>(y) * width_ + x) * 3;
  return {rgb_[i], rgb_[i + 1], rgb_[i + 2]};
}

void Image::set(int x, int y, Rgb c) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
  const std::size_t i = (static_cast<std::size_t>(y) * width_ + x) * 3;
  rgb_[i] = c.r;
  rgb_[i + 1] = c.g;
  rgb_[i + 2] = c.b;
}

// ---- colour map -------------------------------------------------------------

Rgb viridis(double t) {
  const double pos = (std::isnan(t) ? 0.0 : std::clamp(t, 0.0, 1.0)) * 255.0;
  std::size_t k = 0;
  while (k + 2 < kViridis.size() && pos > kViridis[k + 1].index) ++k;
  const ControlPoint& a = kViridis[k];
  const ControlPoint& b = kViridis[k + 1];
  const double f = (pos - a.index) / (b.index - a.index);
  return {to_byte(a.r + f * (b.r - a.r)), to_byte(a.g + f * (b.g - a.g)),
          to_byte(a.b + f * (b.b - a.b))};
}

}  // namespace pacflow::plot
