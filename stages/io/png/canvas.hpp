#pragma once
// A figure drawn once, in pixels (1 px is 1 pt in the vector forms), and written as PNG, SVG or PDF
// from that one drawing (its cairo operations, replayed onto each target). Text is set in a real
// font (DejaVu Sans through fontconfig; its outlines in SVG, embedded and searchable in PDF).
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stages/io/png/image.hpp"

namespace pacflow::plot {

enum class FigureFormat { kPng, kSvg, kPdf };

// "png", "svg", "pdf"; the file extension without its dot.
std::string_view extension_of(FigureFormat format);
// The format a file name's extension names (case-insensitive); throws std::invalid_argument naming
// `path` for any other.
FigureFormat format_of(const std::filesystem::path& path);

enum class Align { kStart, kCentre, kEnd };

// Sizes of text set in the figures' font at `size` pixels (the em).
double text_width(std::string_view text, double size);
double cap_height(double size);  // of capitals and digits, above the baseline
double descent(double size);     // of the lowest descender ("g", "y"), below the baseline

// A piece of text as drawn: its ink box in figure pixels (what a reader sees of it).
struct Label {
  std::string text;
  double x0, y0, x1, y1;
};

class Canvas {
 public:
  // A white figure `width` x `height` pixels; throws std::invalid_argument unless both are positive.
  Canvas(int width, int height);
  Canvas(Canvas&&) noexcept;
  Canvas& operator=(Canvas&&) noexcept;
  ~Canvas();

  int width() const { return width_; }
  int height() const { return height_; }

  // Fills [x0, x1) x [y0, y1).
  void fill(double x0, double y0, double x1, double y1, Rgb colour);
  // Cells of `colours` ([rows][columns], row 0 at the top) stretched over [x0, x1) x [y0, y1), each
  // a block of one colour in every format (nearest neighbour, never smoothed): a heat map of any
  // size stays one small image in the vector forms.
  void cells(double x0, double y0, double x1, double y1, int columns, int rows, const std::vector<Rgb>& colours);
  // Horizontal text whose cap-height box is anchored at (x, y) by `ax` and `ay`.
  void text(std::string_view text, double x, double y, Align ax, Align ay, double size);
  // Text reading bottom to top, centred on y_centre; x_left is where the tops of its capitals lie.
  void vertical_text(std::string_view text, double x_left, double y_centre, double size);

  // Every piece of text drawn, in drawing order: checks of what a reader sees (present, inside the
  // figure, overlapping no other) need no OCR.
  const std::vector<Label>& labels() const { return labels_; }

  // The figure in `format`; throws std::runtime_error naming `what` when cairo fails. The same
  // drawing gives the same bytes (the PDF carries no creation date).
  std::string encode(FigureFormat format, const std::string& what) const;
  // The figure as the PNG shows it, pixel for pixel.
  Image rasterise() const;

 private:
  struct Drawing;
  int width_ = 0;
  int height_ = 0;
  std::unique_ptr<Drawing> drawing_;
  std::vector<Label> labels_;
};

// A PNG's pixels (what a reader of the file sees); throws std::runtime_error naming `what` when
// the bytes are not a PNG.
Image decode_png(const std::string& bytes, const std::string& what);

// Writes `figure` to `path` in the format its extension names, atomically (temp file, then rename);
// throws std::runtime_error naming `path` on failure.
void write_figure(const Canvas& figure, const std::filesystem::path& path);

}  // namespace pacflow::plot
