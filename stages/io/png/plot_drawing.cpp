#include "stages/io/png/plot_drawing.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include <stb/stb_easy_font.h>

namespace pacflow::plot {

void fill(Image& img, int x0, int y0, int x1, int y1, Rgb c) {  // half-open, clipped by set()
  x0 = std::max(x0, 0);
  y0 = std::max(y0, 0);
  x1 = std::min(x1, img.width());
  y1 = std::min(y1, img.height());
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) img.set(x, y, c);
}

void outline(Image& img, int x0, int y0, int x1, int y1, Rgb c, int width) {
  fill(img, x0 - width, y0 - width, x1 + width, y0, c);
  fill(img, x0 - width, y1, x1 + width, y1 + width, c);
  fill(img, x0 - width, y0, x0, y1, c);
  fill(img, x1, y0, x1 + width, y1, c);
}

namespace {

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

int aligned(int pos, int extent, Align a) {
  return a == Align::kStart ? pos : a == Align::kCentre ? pos - extent / 2 : pos - extent;
}

}  // namespace

int text_width(std::string_view text, int scale) { return layout_text(text).width * scale; }

void draw_text(Image& img, std::string_view text, int x, int y, Align ax, Align ay, int scale) {
  const Glyphs g = layout_text(text);
  const int left = aligned(x, g.width * scale, ax);
  const int top = aligned(y, kCapHeight * scale, ay);
  for (const Quad& q : g.quads)
    fill(img, left + q.x0 * scale, top + q.y0 * scale, left + q.x1 * scale, top + q.y1 * scale,
         kBlack);
}

void draw_vertical_text(Image& img, std::string_view text, int x_left, int y_centre) {
  const Glyphs g = layout_text(text);
  const int bottom = y_centre + g.width * kScale / 2;
  for (const Quad& q : g.quads)  // font (u, v) -> pixel (x_left + v, bottom - u)
    fill(img, x_left + q.y0 * kScale, bottom - q.x1 * kScale, x_left + q.y1 * kScale,
         bottom - q.x0 * kScale, kBlack);
}

std::string format_hz(double hz) {
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

std::vector<std::size_t> tick_cells(std::size_t n, double cell_px, int label_px) {
  std::size_t step = n <= 12 ? 1 : (n + 7) / 8;
  while (step < n && static_cast<double>(step) * cell_px < label_px + 8) ++step;
  std::vector<std::size_t> cells;
  for (std::size_t i = 0; i < n; i += step) cells.push_back(i);
  return cells;
}

int widest(const std::vector<std::string>& labels) {
  int w = 0;
  for (const auto& s : labels) w = std::max(w, text_width(s));
  return w;
}

std::vector<double> round_values(double lo, double hi, std::size_t most) {
  const double span = hi - lo;
  if (!(std::isfinite(span) && span > 0) || most == 0) return {};
  const auto first = [&](double step) { return std::ceil(lo / step - 1e-9); };
  const auto count = [&](double step) { return std::floor(hi / step + 1e-9) - first(step) + 1; };
  constexpr std::array<double, 3> kMantissas{1.0, 2.0, 5.0};
  const int exponent = static_cast<int>(std::floor(std::log10(span))) - 1;
  double step = 0;
  for (int i = 0; i < 30; ++i) {
    step = kMantissas[static_cast<std::size_t>(i % 3)] * std::pow(10.0, exponent + i / 3);
    if (count(step) <= static_cast<double>(most)) break;
  }
  std::vector<double> values;
  const auto k0 = static_cast<long long>(first(step));
  for (long long k = k0; k < k0 + static_cast<long long>(count(step)); ++k)
    values.push_back(k == 0 ? 0.0 : static_cast<double>(k) * step);  // an exact 0, never "-0" or "1.4e-17"
  return values;
}

ColourRange colour_range(const std::vector<double>& values) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const double v : values) {
    if (std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (lo > hi) return {0.0, 1.0};  // nothing finite: any range will do
  if (lo == hi) return {lo - 0.5, hi + 0.5};
  return {lo, hi};
}

std::vector<ColourBarTick> colour_bar_ticks(ColourRange range) {
  std::vector<double> values = round_values(range.lo, range.hi, 5);
  if (values.size() < 2) values = {range.lo, range.hi};
  const std::vector<std::string> labels = format_values(values);
  std::vector<ColourBarTick> ticks;
  for (std::size_t k = 0; k < values.size(); ++k)
    ticks.push_back({range.hi > range.lo ? std::clamp((values[k] - range.lo) / (range.hi - range.lo), 0.0, 1.0) : 0.5,
                     labels[k]});
  return ticks;
}

int colour_bar_margin(const std::vector<ColourBarTick>& ticks) {
  std::vector<std::string> labels;
  for (const ColourBarTick& t : ticks) labels.push_back(t.label);
  return 28 + kColourBarWidth + kTick + kGap + widest(labels) + 12 + kDescent * kScale + 16;
}

void draw_colour_bar(Image& img, int x0, int y0, int y1, const std::vector<ColourBarTick>& ticks,
                     const std::string& label) {
  const int x1 = x0 + kColourBarWidth;
  const int bar_h = y1 - y0;
  for (int y = y0; y < y1; ++y)
    fill(img, x0, y, x1, y + 1, viridis(static_cast<double>(y1 - 1 - y) / (bar_h - 1)));
  outline(img, x0, y0, x1, y1);
  std::vector<std::string> labels;
  for (const ColourBarTick& t : ticks) {
    const int y = y1 - 1 - static_cast<int>(std::lround((bar_h - 1) * t.fraction));
    fill(img, x1 + 1, y, x1 + 1 + kTick, y + 1, kBlack);
    draw_text(img, t.label, x1 + 1 + kTick + kGap, y, Align::kStart, Align::kCentre);
    labels.push_back(t.label);
  }
  draw_vertical_text(img, label, x1 + 1 + kTick + kGap + widest(labels) + 12, (y0 + y1) / 2);
}

}  // namespace pacflow::plot
