#include "stages/io/png/canvas.hpp"

#include <algorithm>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <numbers>
#include <stdexcept>

#include "engine/api/json_text.hpp"
#include "engine/io/atomic_file.hpp"

namespace pacflow::plot {

namespace {

constexpr const char* kFontFamily = "DejaVu Sans";

struct SurfaceDeleter {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
struct ContextDeleter {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
};
using Surface = std::unique_ptr<cairo_surface_t, SurfaceDeleter>;
using Context = std::unique_ptr<cairo_t, ContextDeleter>;

void check(cairo_status_t status, const std::string& what) {
  if (status != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error("figure " + what + ": cairo: " + cairo_status_to_string(status));
}

Context context_on(cairo_surface_t* surface, const std::string& what) {
  check(cairo_surface_status(surface), what);
  Context cr(cairo_create(surface));
  check(cairo_status(cr.get()), what);
  return cr;
}

void set_colour(cairo_t* cr, Rgb c) { cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0); }

// The figures' font, with unhinted metrics: text is laid out the same on every surface.
void set_font(cairo_t* cr, double size) {
  cairo_select_font_face(cr, kFontFamily, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
  std::unique_ptr<cairo_font_options_t, decltype(&cairo_font_options_destroy)> options(cairo_font_options_create(),
                                                                                      &cairo_font_options_destroy);
  cairo_font_options_set_hint_metrics(options.get(), CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style(options.get(), CAIRO_HINT_STYLE_NONE);
  cairo_set_font_options(cr, options.get());
}

// Text extents and font extents on a scratch surface (no state kept between calls).
struct Measured {
  cairo_text_extents_t text{};
  cairo_font_extents_t font{};
};

Measured measure(std::string_view text, double size) {
  const Surface scratch(cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1));
  const Context cr = context_on(scratch.get(), "text measurement");
  set_font(cr.get(), size);
  Measured m;
  const std::string s = utf8_text(text);
  cairo_text_extents(cr.get(), s.c_str(), &m.text);
  cairo_font_extents(cr.get(), &m.font);
  return m;
}

void append_to(std::string& out, const unsigned char* data, unsigned int length) {
  out.append(reinterpret_cast<const char*>(data), length);
}

cairo_status_t write_to_string(void* closure, const unsigned char* data, unsigned int length) {
  append_to(*static_cast<std::string*>(closure), data, length);
  return CAIRO_STATUS_SUCCESS;
}

struct Reader {
  const std::string& bytes;
  std::size_t at = 0;
};

cairo_status_t read_from_string(void* closure, unsigned char* data, unsigned int length) {
  auto& reader = *static_cast<Reader*>(closure);
  if (reader.bytes.size() - reader.at < length) return CAIRO_STATUS_READ_ERROR;
  std::memcpy(data, reader.bytes.data() + reader.at, length);
  reader.at += length;
  return CAIRO_STATUS_SUCCESS;
}

Image image_of(cairo_surface_t* surface) {
  cairo_surface_flush(surface);
  const int width = cairo_image_surface_get_width(surface), height = cairo_image_surface_get_height(surface);
  const int stride = cairo_image_surface_get_stride(surface);
  const unsigned char* data = cairo_image_surface_get_data(surface);
  Image image(width, height, Rgb{255, 255, 255});
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      std::uint32_t pixel = 0;  // native-endian 0xAARRGGBB (RGB24 and opaque ARGB32 alike)
      std::memcpy(&pixel, data + static_cast<std::ptrdiff_t>(y) * stride + x * 4, sizeof pixel);
      image.set(x, y, {static_cast<std::uint8_t>(pixel >> 16), static_cast<std::uint8_t>(pixel >> 8),
                       static_cast<std::uint8_t>(pixel)});
    }
  return image;
}

// Browsers smooth an SVG <image> stretched over many pixels; heat-map cells must stay blocks, as
// they do in the PNG and (cairo's /Interpolate false) the PDF. cairo 1.16 writes no hint itself.
std::string with_blocky_images(std::string svg) {
  constexpr std::string_view kImage = "<image ";
  constexpr std::string_view kHint = "<image style=\"image-rendering:pixelated\" image-rendering=\"optimizeSpeed\" ";
  for (std::size_t at = svg.find(kImage); at != std::string::npos; at = svg.find(kImage, at + kHint.size()))
    svg.replace(at, kImage.size(), kHint);
  return svg;
}

// cairo names an SVG's images and surfaces after process-wide counters ("image18", "surface22"), so
// the same figure drawn twice in one process would differ; numbered in order of first use, it does not.
std::string with_numbered_ids(const std::string& svg) {
  std::string out;
  out.reserve(svg.size());
  std::map<std::string, std::map<std::string, int>> numbers;  // prefix -> cairo's number -> ours
  std::size_t at = 0;
  while (at < svg.size()) {
    const char c = svg[at];
    out.push_back(c);
    ++at;
    if (c != '"' && c != '#') continue;
    for (const std::string prefix : {"image", "surface"}) {
      if (svg.compare(at, prefix.size(), prefix) != 0) continue;
      std::size_t end = at + prefix.size();
      while (end < svg.size() && std::isdigit(static_cast<unsigned char>(svg[end]))) ++end;
      if (end == at + prefix.size()) continue;
      auto& ours = numbers[prefix];
      const auto [it, added] = ours.try_emplace(svg.substr(at + prefix.size(), end - at - prefix.size()),
                                                static_cast<int>(ours.size()) + 1);
      out += prefix + std::to_string(it->second);
      at = end;
      break;
    }
  }
  return out;
}

}  // namespace

// The drawing as the operations that make it, replayed onto each target (a PNG's image, an SVG or a
// PDF surface). Not a cairo recording surface: cairo 1.16's SVG backend never frees one painted as a
// source (LeakSanitizer, the asan preset).
struct Canvas::Drawing {
  std::vector<std::function<void(cairo_t*)>> operations;
  void replay(cairo_t* cr, const std::string& what) const {
    for (const auto& operation : operations) operation(cr);
    check(cairo_status(cr), what);
  }
};

std::string_view extension_of(FigureFormat format) {
  switch (format) {
    case FigureFormat::kPng: return "png";
    case FigureFormat::kSvg: return "svg";
    case FigureFormat::kPdf: return "pdf";
  }
  return "png";
}

FigureFormat format_of(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const FigureFormat f : {FigureFormat::kPng, FigureFormat::kSvg, FigureFormat::kPdf})
    if (ext.size() > 1 && ext.substr(1) == extension_of(f)) return f;
  throw std::invalid_argument("figure " + path.string() + ": its extension names no figure format (.png, .svg or .pdf)");
}

double text_width(std::string_view text, double size) { return measure(text, size).text.x_advance; }

double cap_height(double size) { return -measure("H0", size).text.y_bearing; }

double descent(double size) { return measure("gy", size).font.descent; }

Canvas::Canvas(int width, int height) : width_(width), height_(height) {
  if (width <= 0 || height <= 0) throw std::invalid_argument("Canvas: width and height must be positive");
  drawing_ = std::make_unique<Drawing>();
  fill(0, 0, width, height, Rgb{255, 255, 255});
}

Canvas::Canvas(Canvas&&) noexcept = default;
Canvas& Canvas::operator=(Canvas&&) noexcept = default;
Canvas::~Canvas() = default;

void Canvas::fill(double x0, double y0, double x1, double y1, Rgb colour) {
  if (x1 <= x0 || y1 <= y0) return;
  drawing_->operations.push_back([=](cairo_t* cr) {
    set_colour(cr, colour);
    cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0);
    cairo_fill(cr);
  });
}

void Canvas::cells(double x0, double y0, double x1, double y1, int columns, int rows, const std::vector<Rgb>& colours) {
  if (columns <= 0 || rows <= 0 || colours.size() != static_cast<std::size_t>(columns) * static_cast<std::size_t>(rows))
    throw std::invalid_argument("Canvas::cells: colours are not rows x columns");
  drawing_->operations.push_back([=](cairo_t* cr) {
    const Surface image(cairo_image_surface_create(CAIRO_FORMAT_RGB24, columns, rows));
    if (cairo_surface_status(image.get()) != CAIRO_STATUS_SUCCESS) return;  // the replay's status check names it
    unsigned char* data = cairo_image_surface_get_data(image.get());
    const int stride = cairo_image_surface_get_stride(image.get());
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < columns; ++c) {
        const Rgb& rgb =
            colours[static_cast<std::size_t>(r) * static_cast<std::size_t>(columns) + static_cast<std::size_t>(c)];
        const std::uint32_t pixel = (std::uint32_t{rgb.r} << 16) | (std::uint32_t{rgb.g} << 8) | rgb.b;
        std::memcpy(data + static_cast<std::ptrdiff_t>(r) * stride + c * 4, &pixel, sizeof pixel);
      }
    cairo_surface_mark_dirty(image.get());
    cairo_save(cr);
    cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0);
    cairo_clip(cr);
    cairo_translate(cr, x0, y0);
    cairo_scale(cr, (x1 - x0) / columns, (y1 - y0) / rows);
    cairo_set_source_surface(cr, image.get(), 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_paint(cr);
    cairo_restore(cr);
  });
}

namespace {
double aligned(double pos, double extent, Align a) {
  return a == Align::kStart ? pos : a == Align::kCentre ? pos - extent / 2 : pos - extent;
}

// Draws `text` in the figures' font at `size` with its baseline starting at the origin, rotated by
// `angle` (radians, counter-clockwise negative as cairo turns).
void show_text(cairo_t* cr, const std::string& text, double size, double x, double y, double angle) {
  cairo_save(cr);
  set_font(cr, size);
  set_colour(cr, kBlack);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, angle);
  cairo_move_to(cr, 0, 0);
  cairo_show_text(cr, text.c_str());
  cairo_new_path(cr);
  cairo_restore(cr);
}

}  // namespace

void Canvas::text(std::string_view text, double x, double y, Align ax, Align ay, double size) {
  if (text.empty()) return;
  const std::string s = utf8_text(text);  // cairo refuses other bytes (an EDF label in Latin-1)
  const cairo_text_extents_t extents = measure(s, size).text;
  const double cap = cap_height(size);
  const double left = aligned(x, extents.x_advance, ax), baseline = aligned(y, cap, ay) + cap;
  drawing_->operations.push_back([=](cairo_t* cr) { show_text(cr, s, size, left, baseline, 0); });
  labels_.push_back({s, left + extents.x_bearing, baseline + extents.y_bearing,
                     left + extents.x_bearing + extents.width, baseline + extents.y_bearing + extents.height});
}

void Canvas::vertical_text(std::string_view text, double x_left, double y_centre, double size) {
  if (text.empty()) return;
  const std::string s = utf8_text(text);
  const cairo_text_extents_t extents = measure(s, size).text;
  const double baseline = x_left + cap_height(size), start = y_centre + extents.x_advance / 2;
  // Rotated a quarter turn counter-clockwise: the advance points up, the capitals' tops left; text
  // space (u, v) lands at (baseline + v, start - u).
  drawing_->operations.push_back([=](cairo_t* cr) { show_text(cr, s, size, baseline, start, -std::numbers::pi / 2); });
  labels_.push_back({s, baseline + extents.y_bearing, start - extents.x_bearing - extents.width,
                     baseline + extents.y_bearing + extents.height, start - extents.x_bearing});
}

std::string Canvas::encode(FigureFormat format, const std::string& what) const {
  std::string bytes;
  if (format == FigureFormat::kPng) {
    const Surface image(cairo_image_surface_create(CAIRO_FORMAT_RGB24, width_, height_));
    const Context cr = context_on(image.get(), what);
    drawing_->replay(cr.get(), what);
    check(cairo_surface_write_to_png_stream(image.get(), write_to_string, &bytes), what);
    return bytes;
  }
  {
    const Surface target(format == FigureFormat::kSvg
                             ? cairo_svg_surface_create_for_stream(write_to_string, &bytes, width_, height_)
                             : cairo_pdf_surface_create_for_stream(write_to_string, &bytes, width_, height_));
    if (format == FigureFormat::kPdf)  // no creation date: the same figure is the same file
      cairo_pdf_surface_set_metadata(target.get(), CAIRO_PDF_METADATA_CREATE_DATE, "");
    const Context cr = context_on(target.get(), what);
    drawing_->replay(cr.get(), what);
    cairo_surface_finish(target.get());
    check(cairo_surface_status(target.get()), what);
  }
  return format == FigureFormat::kSvg ? with_blocky_images(with_numbered_ids(bytes)) : bytes;
}

Image Canvas::rasterise() const {
  const Surface image(cairo_image_surface_create(CAIRO_FORMAT_RGB24, width_, height_));
  const Context cr = context_on(image.get(), "rasterise");
  drawing_->replay(cr.get(), "rasterise");
  return image_of(image.get());
}

Image decode_png(const std::string& bytes, const std::string& what) {
  Reader reader{bytes};
  const Surface image(cairo_image_surface_create_from_png_stream(read_from_string, &reader));
  if (cairo_surface_status(image.get()) != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error(what + ": not a PNG cairo can read");
  if (cairo_image_surface_get_format(image.get()) == CAIRO_FORMAT_ARGB32) {  // flatten onto white
    const Surface flat(cairo_image_surface_create(CAIRO_FORMAT_RGB24, cairo_image_surface_get_width(image.get()),
                                                  cairo_image_surface_get_height(image.get())));
    const Context cr = context_on(flat.get(), what);
    cairo_set_source_rgb(cr.get(), 1, 1, 1);
    cairo_paint(cr.get());
    cairo_set_source_surface(cr.get(), image.get(), 0, 0);
    cairo_paint(cr.get());
    return image_of(flat.get());
  }
  return image_of(image.get());
}

void write_figure(const Canvas& figure, const std::filesystem::path& path) {
  if (!path.has_filename()) throw std::runtime_error("write_figure: no file name in path " + path.string());
  FigureFormat format{};
  try {
    format = format_of(path);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
  const std::string bytes = figure.encode(format, path.string());
  try {
    write_file_atomically(path, bytes);
  } catch (const std::exception& e) {
    throw std::runtime_error("write_figure: cannot write " + path.string() + ": " + e.what());
  }
}

}  // namespace pacflow::plot
