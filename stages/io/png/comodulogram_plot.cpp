#include "stages/io/png/comodulogram_plot.hpp"

#include "engine/atomic_file.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <system_error>

// Third-party single-header libraries: silence their warnings, keep ours.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#pragma GCC diagnostic ignored "-Wold-style-cast"
#pragma GCC diagnostic ignored "-Wcast-qual"
#pragma GCC diagnostic ignored "-Wpedantic"
#include <stb/stb_easy_font.h>
// Static linkage so another translation unit may embed its own copy; no stdio API needed.
#define STB_IMAGE_WRITE_STATIC
#define STBI_WRITE_NO_STDIO
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#pragma GCC diagnostic pop

namespace pacflow::plot {
namespace {

namespace fs = std::filesystem;

constexpr Rgb kWhite{255, 255, 255};
constexpr Rgb kBlack{0, 0, 0};
constexpr Rgb kNanGrey{211, 211, 211};  // matplotlib "lightgrey"
constexpr int kScale = 2;               // font pixels per stb_easy_font unit
constexpr int kCapHeight = 7;           // font units: digits and capitals span y in [0, 7)
constexpr int kDescent = 9;             // font units: lowest descender ("g", "y")
constexpr int kTick = 6;
constexpr int kGap = 6;
constexpr int kColourBarWidth = 24;

// ---- geometry and text --------------------------------------------------

void fill(Image& img, int x0, int y0, int x1, int y1, Rgb c) {  // half-open, clipped by set()
  x0 = std::max(x0, 0);
  y0 = std::max(y0, 0);
  x1 = std::min(x1, img.width());
  y1 = std::min(y1, img.height());
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) img.set(x, y, c);
}

void outline(Image& img, int x0, int y0, int x1, int y1) {  // 1 px just outside [x0,x1)x[y0,y1)
  fill(img, x0 - 1, y0 - 1, x1 + 1, y0, kBlack);
  fill(img, x0 - 1, y1, x1 + 1, y1 + 1, kBlack);
  fill(img, x0 - 1, y0, x0, y1, kBlack);
  fill(img, x1, y0, x1 + 1, y1, kBlack);
}

struct Quad {
  int x0, y0, x1, y1;  // font units, y down, half-open
};

struct Glyphs {
  std::vector<Quad> quads;
  int width = 0;  // ink extent in font units
};

Glyphs layout_text(std::string_view text) {
  std::string buf(text);
  for (char& c : buf)
    if (c < 32 || c > 126) c = '?';  // the font covers printable ASCII only
  // 64 bytes per quad (4 vertices x 16 bytes); no glyph needs more than ~16 quads.
  std::vector<char> vbuf(buf.size() * 64 * 32 + 64);
  const int n = stb_easy_font_print(0.0f, 0.0f, buf.data(), nullptr, vbuf.data(),
                                    static_cast<int>(vbuf.size()));
  Glyphs g;
  for (int q = 0; q < n; ++q) {
    std::array<float, 2> v0{}, v2{};  // opposite corners of the axis-aligned quad
    std::memcpy(v0.data(), vbuf.data() + q * 64, sizeof v0);
    std::memcpy(v2.data(), vbuf.data() + q * 64 + 32, sizeof v2);
    const Quad quad{static_cast<int>(std::lround(std::min(v0[0], v2[0]))),
                    static_cast<int>(std::lround(std::min(v0[1], v2[1]))),
                    static_cast<int>(std::lround(std::max(v0[0], v2[0]))),
                    static_cast<int>(std::lround(std::max(v0[1], v2[1])))};
    g.quads.push_back(quad);
    g.width = std::max(g.width, quad.x1);
  }
  return g;
}

int text_width(std::string_view text, int scale = kScale) {
  return layout_text(text).width * scale;
}

enum class Align { kStart, kCentre, kEnd };

int aligned(int pos, int extent, Align a) {
  return a == Align::kStart ? pos : a == Align::kCentre ? pos - extent / 2 : pos - extent;
}

// Horizontal text; (x, y) is the anchor of the cap-height box.
void draw_text(Image& img, std::string_view text, int x, int y, Align ax, Align ay,
               int scale = kScale) {
  const Glyphs g = layout_text(text);
  const int left = aligned(x, g.width * scale, ax);
  const int top = aligned(y, kCapHeight * scale, ay);
  for (const Quad& q : g.quads)
    fill(img, left + q.x0 * scale, top + q.y0 * scale, left + q.x1 * scale, top + q.y1 * scale,
         kBlack);
}

// Text rotated 90 degrees counter-clockwise (reads bottom to top), centred
// vertically on y_centre; x_left is where the tops of the capitals lie.
void draw_vertical_text(Image& img, std::string_view text, int x_left, int y_centre) {
  const Glyphs g = layout_text(text);
  const int bottom = y_centre + g.width * kScale / 2;
  for (const Quad& q : g.quads)  // font (u, v) -> pixel (x_left + v, bottom - u)
    fill(img, x_left + q.y0 * kScale, bottom - q.x1 * kScale, x_left + q.y1 * kScale,
         bottom - q.x0 * kScale, kBlack);
}

// ---- number formatting ----------------------------------------------------

std::string format_hz(double hz) {  // "6", "82.2", "4.25", "150"
  const double a = std::fabs(hz);
  const int decimals = a >= 100.0 ? 0 : a >= 10.0 ? 1 : 2;
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), "%.*f", decimals, hz);
  std::string s(buf.data());
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

// About 3 significant digits, more if needed to keep neighbouring labels distinct.
std::vector<std::string> format_values(const std::vector<double>& values) {
  std::vector<std::string> out;
  for (int digits = 3; digits <= 8; ++digits) {
    out.clear();
    for (const double v : values) {
      std::array<char, 64> buf{};
      const double a = std::fabs(v);
      if (a >= 1e3 && a < 1e6)
        std::snprintf(buf.data(), buf.size(), "%.0f", v);  // "1234" reads better than "1.23e+03"
      else
        std::snprintf(buf.data(), buf.size(), "%.*g", digits, v);
      out.emplace_back(buf.data());
    }
    if (std::adjacent_find(out.begin(), out.end()) == out.end()) break;
  }
  return out;
}

// Indices of the cells that get a tick label: all of them when there are few,
// otherwise ~8 evenly spaced, thinned further if the labels would collide.
std::vector<std::size_t> tick_cells(std::size_t n, double cell_px, int label_px) {
  std::size_t step = n <= 12 ? 1 : (n + 7) / 8;
  while (step < n && static_cast<double>(step) * cell_px < label_px + 8) ++step;
  std::vector<std::size_t> cells;
  for (std::size_t i = 0; i < n; i += step) cells.push_back(i);
  return cells;
}

// ---- colour map -----------------------------------------------------------

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

// ---- Image ------------------------------------------------------------------

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

// ---- rendering ----------------------------------------------------------------

Image render_heatmap(const Heatmap& map, int width, int height) {
  const std::size_t nx = map.x_centres.size();
  const std::size_t ny = map.y_centres.size();
  if (nx == 0 || ny == 0) throw std::invalid_argument("render_heatmap: empty axis");
  if (map.values.size() != nx * ny)
    throw std::invalid_argument("render_heatmap: values.size() != x_count * y_count");

  // Colour range over the finite values.
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const double v : map.values) {
    if (std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (lo > hi) {  // nothing finite: any range will do
    lo = 0.0;
    hi = 1.0;
  }
  if (lo == hi) {
    lo -= 0.5;
    hi += 0.5;
  }

  std::vector<std::string> x_labels, y_labels;
  for (const double f : map.x_centres) x_labels.push_back(format_hz(f));
  for (const double f : map.y_centres) y_labels.push_back(format_hz(f));
  std::vector<double> bar_values;
  for (int k = 0; k < 5; ++k) {
    const double v = lo + (hi - lo) * k / 4.0;
    bar_values.push_back(std::fabs(v) < 1e-9 * (hi - lo) ? 0.0 : v);  // no "1.4e-17"
  }
  const std::vector<std::string> bar_labels = format_values(bar_values);
  auto widest = [](const std::vector<std::string>& labels) {
    int w = 0;
    for (const auto& s : labels) w = std::max(w, text_width(s));
    return w;
  };

  // Margins, outside in: title | y label, y tick labels, ticks | colour bar, its labels and label.
  constexpr int kCap = kCapHeight * kScale;
  constexpr int kRotated = kDescent * kScale;  // width of a vertical label incl. descenders
  const int top = map.title.empty() ? 20 : 16 + kCap + 22;
  const int bottom = kTick + kGap + kCap + 16 + kRotated + 14;
  const int left = 16 + kRotated + 12 + widest(y_labels) + kGap + kTick;
  const int right = 28 + kColourBarWidth + kTick + kGap + widest(bar_labels) + 12 + kRotated + 16;
  const int px0 = left, px1 = width - right, py0 = top, py1 = height - bottom;
  if (px1 - px0 < 2 || py1 - py0 < 2)
    throw std::invalid_argument("render_heatmap: image too small for the plot layout");

  Image img(width, height, kWhite);
  const double cell_w = (px1 - px0) / static_cast<double>(nx);
  const double cell_h = (py1 - py0) / static_cast<double>(ny);
  auto x_edge = [&](std::size_t i) {
    return px0 + static_cast<int>(std::lround(static_cast<double>(i) * cell_w));
  };
  auto y_edge = [&](std::size_t i) {  // y grows upwards: cell 0 sits on the bottom edge
    return py1 - static_cast<int>(std::lround(static_cast<double>(i) * cell_h));
  };

  for (std::size_t ix = 0; ix < nx; ++ix) {
    for (std::size_t iy = 0; iy < ny; ++iy) {
      const double v = map.values[ix * ny + iy];
      const Rgb c = std::isnan(v) ? kNanGrey : viridis((v - lo) / (hi - lo));
      fill(img, x_edge(ix), y_edge(iy + 1), x_edge(ix + 1), y_edge(iy), c);
    }
  }
  outline(img, px0, py0, px1, py1);

  // X ticks and labels at cell centres.
  for (const std::size_t ix : tick_cells(nx, cell_w, widest(x_labels))) {
    const int x = (x_edge(ix) + x_edge(ix + 1)) / 2;
    fill(img, x, py1 + 1, x + 1, py1 + 1 + kTick, kBlack);
    draw_text(img, x_labels[ix], x, py1 + 1 + kTick + kGap, Align::kCentre, Align::kStart);
  }
  draw_text(img, map.x_label, (px0 + px1) / 2, height - 14 - kRotated, Align::kCentre,
            Align::kStart);

  // Y ticks and labels at cell centres.
  for (const std::size_t iy : tick_cells(ny, cell_h, kCap)) {
    const int y = (y_edge(iy) + y_edge(iy + 1)) / 2;
    fill(img, px0 - 1 - kTick, y, px0 - 1, y + 1, kBlack);
    draw_text(img, y_labels[iy], px0 - 1 - kTick - kGap, y, Align::kEnd, Align::kCentre);
  }
  draw_vertical_text(img, map.y_label, 16, (py0 + py1) / 2);

  // Title, centred on the plot area when it fits, else on the image, else smaller.
  if (!map.title.empty()) {
    const int tw = text_width(map.title);
    const int scale = tw <= width - 8 ? kScale : 1;
    const int cx = tw <= px1 - px0 ? (px0 + px1) / 2 : width / 2;
    draw_text(img, map.title, cx, 16, Align::kCentre, Align::kStart, scale);
  }

  // Colour bar: one viridis row per pixel, five ticks from lo to hi.
  const int cb0 = px1 + 28, cb1 = cb0 + kColourBarWidth;
  const int bar_h = py1 - py0;
  for (int y = py0; y < py1; ++y)
    fill(img, cb0, y, cb1, y + 1, viridis(static_cast<double>(py1 - 1 - y) / (bar_h - 1)));
  outline(img, cb0, py0, cb1, py1);
  for (int k = 0; k < 5; ++k) {
    const int y = py1 - 1 - static_cast<int>(std::lround((bar_h - 1) * k / 4.0));
    fill(img, cb1 + 1, y, cb1 + 1 + kTick, y + 1, kBlack);
    draw_text(img, bar_labels[static_cast<std::size_t>(k)], cb1 + 1 + kTick + kGap, y,
              Align::kStart, Align::kCentre);
  }
  draw_vertical_text(img, map.colorbar_label, cb1 + 1 + kTick + kGap + widest(bar_labels) + 12,
                     (py0 + py1) / 2);
  return img;
}

// ---- PNG output -------------------------------------------------------------

void write_png(const Image& image, const std::filesystem::path& path) {
  if (!path.has_filename())
    throw std::runtime_error("write_png: no file name in path " + path.string());

  std::vector<std::uint8_t> bytes;
  auto sink = [](void* context, void* data, int size) {
    auto* out = static_cast<std::vector<std::uint8_t>*>(context);
    const auto* p = static_cast<const std::uint8_t*>(data);
    out->insert(out->end(), p, p + size);
  };
  if (stbi_write_png_to_func(sink, &bytes, image.width(), image.height(), 3, image.rgb().data(),
                             image.width() * 3) == 0)
    throw std::runtime_error("write_png: PNG encoding failed for " + path.string());

  try {
    write_file_atomically(path, std::string(bytes.begin(), bytes.end()));
  } catch (const std::exception& e) {
    throw std::runtime_error("write_png: cannot write " + path.string() + ": " + e.what());
  }
}

}  // namespace pacflow::plot
