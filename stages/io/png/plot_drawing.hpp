#pragma once
// Drawing primitives the figures share: outlined rectangles, labels in the figures' font, tick and
// number formatting, and the colour bar the comodulogram plots share.
#include <string>
#include <string_view>
#include <vector>

#include "stages/io/png/canvas.hpp"

namespace pacflow::plot {

inline constexpr double kFontSize = 13;   // tick labels, axis labels, panel labels (px)
inline constexpr double kTitleSize = 16;  // a figure's title
inline constexpr double kSmallSize = 11;  // a subtitle; labels too long for their room
inline constexpr int kTick = 5;
inline constexpr int kGap = 5;
inline constexpr int kColourBarWidth = 20;

// Whole pixels a label of `size` takes: its width, its capitals' height, and the width of a
// vertical label including its descenders.
int label_width(std::string_view text, double size = kFontSize);
int label_height(double size = kFontSize);
int rotated_label_width(double size = kFontSize);

// Text as it fits in `room` pixels: at `size`, else at kSmallSize, else shortened with an ellipsis
// (whole characters) at kSmallSize.
struct FittedText {
  std::string text;
  double size;
};
FittedText fitted(std::string_view text, int room, double size = kFontSize);

// A frame `width` pixels wide just outside [x0, x1) x [y0, y1).
void outline(Canvas& canvas, int x0, int y0, int x1, int y1, Rgb c = kBlack, int width = 1);

// "6", "82.2", "4.25", "150"
std::string format_hz(double hz);
// About 3 significant digits, more if needed to keep neighbouring labels distinct.
std::vector<std::string> format_values(const std::vector<double>& values);
// Indices of the cells that get a tick label: all of them when there are few,
// otherwise ~8 evenly spaced, thinned further if the labels would collide.
std::vector<std::size_t> tick_cells(std::size_t n, double cell_px, int label_px);
// Widest of `labels` in pixels.
int widest(const std::vector<std::string>& labels, double size = kFontSize);
// Multiples of the smallest step of 1, 2 or 5 times a power of ten that puts at most `most` of them
// in [lo, hi] (an exact 0 among them); none when the range is empty or not finite.
std::vector<double> round_values(double lo, double hi, std::size_t most);

// Colour range [lo, hi] over the finite values (never empty: a constant maps mid-range).
struct ColourRange {
  double lo, hi;
};
ColourRange colour_range(const std::vector<double>& values);

// A labelled tick of the colour bar: its height from the bar's bottom (0) to its top (1), its text.
struct ColourBarTick {
  double fraction;
  std::string label;
};
// Round values inside `range`, 1, 2 or 5 times a power of ten apart, at most five ("0.1, 0.2, 0.3"
// rather than "0.0362, 0.243, 0.347"), each at its place on the bar; the range's ends when fewer
// than two round values fall inside it.
std::vector<ColourBarTick> colour_bar_ticks(ColourRange range);
// Pixels a colour bar with `ticks` and its rotated label takes right of the plot.
int colour_bar_margin(const std::vector<ColourBarTick>& ticks);
// Draws a vertical viridis bar from y0 to y1 starting at x0 (left edge), ticks, labels and the
// rotated `label`.
void draw_colour_bar(Canvas& canvas, int x0, int y0, int y1, const std::vector<ColourBarTick>& ticks,
                     const std::string& label);

}  // namespace pacflow::plot
