#include "stages/io/png/plot_drawing.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>


namespace pacflow::plot {

int label_width(std::string_view text, double size) {
  return static_cast<int>(std::ceil(text_width(text, size)));
}

int label_height(double size) { return static_cast<int>(std::ceil(cap_height(size))); }

int rotated_label_width(double size) { return static_cast<int>(std::ceil(cap_height(size) + descent(size))); }

FittedText fitted(std::string_view text, int room, double size) {
  if (label_width(text, size) <= room) return {std::string(text), size};
  if (label_width(text, kSmallSize) <= room) return {std::string(text), kSmallSize};
  std::string shortened(text);
  while (!shortened.empty() && label_width(shortened + "\u2026", kSmallSize) > room) {
    shortened.pop_back();
    while (!shortened.empty() && (static_cast<unsigned char>(shortened.back()) & 0xC0) == 0x80) shortened.pop_back();
    if (!shortened.empty() && static_cast<unsigned char>(shortened.back()) >= 0xC0) shortened.pop_back();  // a lead byte
  }
  return {shortened + "\u2026", kSmallSize};
}

void outline(Canvas& canvas, int x0, int y0, int x1, int y1, Rgb c, int width) {
  canvas.fill(x0 - width, y0 - width, x1 + width, y0, c);
  canvas.fill(x0 - width, y1, x1 + width, y1 + width, c);
  canvas.fill(x0 - width, y0, x0, y1, c);
  canvas.fill(x1, y0, x1 + width, y1, c);
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

int widest(const std::vector<std::string>& labels, double size) {
  int w = 0;
  for (const auto& s : labels) w = std::max(w, label_width(s, size));
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
  return 24 + kColourBarWidth + kTick + kGap + widest(labels) + 10 + rotated_label_width() + 12;
}

void draw_colour_bar(Canvas& canvas, int x0, int y0, int y1, const std::vector<ColourBarTick>& ticks,
                     const std::string& label) {
  constexpr int kSteps = 256;  // one block per entry of the colour map, top (1) to bottom (0)
  std::vector<Rgb> steps;
  for (int k = kSteps - 1; k >= 0; --k) steps.push_back(viridis(static_cast<double>(k) / (kSteps - 1)));
  const int x1 = x0 + kColourBarWidth;
  canvas.cells(x0, y0, x1, y1, 1, kSteps, steps);
  outline(canvas, x0, y0, x1, y1);
  const int bar_h = y1 - y0;
  std::vector<std::string> labels;
  for (const ColourBarTick& t : ticks) {
    const int y = y1 - 1 - static_cast<int>(std::lround((bar_h - 1) * t.fraction));
    canvas.fill(x1 + 1, y, x1 + 1 + kTick, y + 1, kBlack);
    canvas.text(t.label, x1 + 1 + kTick + kGap, y + 0.5, Align::kStart, Align::kCentre, kFontSize);
    labels.push_back(t.label);
  }
  canvas.vertical_text(label, x1 + 1 + kTick + kGap + widest(labels) + 10, (y0 + y1) / 2.0, kFontSize);
}

}  // namespace pacflow::plot
