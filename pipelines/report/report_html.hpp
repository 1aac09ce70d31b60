#pragma once
// A run's report as one self-contained HTML page (sink `report`): the figures inline (SVG as data
// URIs: no file beside it, no network), the validity diagnostics of every cell, the methods
// paragraph with its references, the warnings, the pipeline with every resolved parameter, the
// provenance and the files the run wrote. Read without the docs: each section says what it shows.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pacflow::report {

struct ReportFigure {
  std::string title;  // "comodulogram, mean over every leading dim"
  std::string file;   // the file a png sink would write it to ("comodulogram_channels.png")
  std::string svg;    // the drawing as SVG
};

// A phase band's waveform shape (stage waveform; waveform_shape.hpp), as the report shows it.
struct PhaseBandShape {
  std::int64_t judged = 0;  // channels with a rhythm to judge
  double share = 0;         // the largest harmonic share among them
  std::string channel;      // where
  bool harmonics = false;   // its harmonics stand out of the epochs' scatter
  bool non_sinusoidal = false;
};

// `report` is the run's result.json content; `shapes` one per phase band when stage waveform ran.
// Sections a run has no data for say so.
std::string report_html(const nlohmann::json& report, const std::vector<ReportFigure>& figures,
                        const std::vector<PhaseBandShape>& shapes = {});

// Text made safe for HTML element content and attribute values.
std::string html_escaped(const std::string& text);

// The pieces every page shares: its head (title, the inline style sheet) and body's opening, a
// figure as an <img> of an SVG data URI with its caption, and the page's end.
std::string page_start(const std::string& title);
std::string figure_html(const ReportFigure& figure, std::size_t number);
std::string page_end();

}  // namespace pacflow::report
