#include "pipelines/report/report_html.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <exception>

#include "engine/api/json_text.hpp"
#include "pipelines/report/methods_text.hpp"
#include "pipelines/report/run_facts.hpp"
#include "pipelines/report/validity.hpp"
#include "pipelines/report/waveform_shape.hpp"

namespace pacflow::report {

using json = nlohmann::json;

namespace {

constexpr const char* kStyle = R"(
body { font-family: "DejaVu Sans", Verdana, sans-serif; margin: 2em auto; max-width: 72em; color: #111; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; } h3 { margin-bottom: 0.3em; }
nav a { margin-right: 1em; } .summary { color: #333; }
figure { margin: 1.5em 0; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.95em; color: #333; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.flag { background: #fde0dc; } td.ok { background: #e6f4ea; }
table.cells td { text-align: center; min-width: 2.2em; }
code, .value { font-family: "DejaVu Sans Mono", monospace; font-size: 0.9em; } .value { word-break: break-all; }
.warning { background: #fff4d6; border-left: 4px solid #e0a800; padding: 0.3em 0.6em; margin: 0.3em 0; }
)";

std::string base64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::string hz(double f) { return fmt::format("{:.3g}", f); }

// A parameter's value as a reader wants it: text bare, short lists whole, long ones their first values.
std::string shown(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array() && value.size() > 12) {
    json head = json::array();
    for (std::size_t k = 0; k < 8; ++k) head.push_back(value[k]);
    std::string text = json_text(head);
    return text.substr(0, text.size() - 1) + fmt::format(", … ({} values)]", value.size());
  }
  return json_text(value);
}

std::string input_words(const json& report) {
  const json input = report.value("input", json::object());
  const std::string source = input.value("source", std::string("input"));
  const std::string path = input.value("path", std::string());
  std::string shape;
  if (input.contains("shape") && input.contains("dims"))
    for (std::size_t k = 0; k < input["shape"].size(); ++k)
      shape += fmt::format("{}{} {}", k ? " × " : "", json_text(input["shape"][k]), input["dims"][k].get<std::string>());
  return fmt::format("{}{}: {} at {} Hz", source, path.empty() ? "" : " " + path, shape,
                     input.value("sample_rate_hz", input.value("fs", 0.0)));
}

std::string header(const json& report) {
  std::string measure = report.value("mi_method_name", std::string());
  std::string html = fmt::format("<header><h1>Phase-amplitude coupling report</h1>\n<p class=\"summary\">{}{}. pacflow {}"
                                 " ({}).</p>\n",
                                 html_escaped(input_words(report)), measure.empty() ? "" : "; " + html_escaped(measure),
                                 html_escaped(report.value("version", std::string("?"))),
                                 html_escaped(report.value("provenance", json::object()).value("describe", std::string("?"))));
  html += "<nav><a href=\"#figures\">Figures</a><a href=\"#validity\">Validity</a><a href=\"#methods\">Methods</a>"
          "<a href=\"#warnings\">Warnings</a><a href=\"#pipeline\">Pipeline and parameters</a>"
          "<a href=\"#provenance\">Provenance</a><a href=\"#files\">Files</a></nav></header>\n";
  return html;
}

std::string figures_section(const std::vector<ReportFigure>& figures) {
  std::string html = "<section id=\"figures\"><h2>Figures</h2>\n";
  if (figures.empty()) html += "<p>This run draws no figure (no comodulogram or ERPAC result).</p>\n";
  for (std::size_t k = 0; k < figures.size(); ++k) html += figure_html(figures[k], k + 1);
  return html + "</section>\n";
}

std::string band_rows(const std::vector<BandValidity>& bands, bool phase, const std::vector<PhaseBandShape>& shapes) {
  std::string html;
  for (std::size_t k = 0; k < bands.size(); ++k) {
    const BandValidity& b = bands[k];
    const auto cell = [](bool bad, const std::string& text) {
      return fmt::format("<td class=\"num {}\">{}</td>", bad ? "flag" : "ok", text);
    };
    html += fmt::format("<tr><td class=\"num\">{}–{}</td><td class=\"num\">{}</td>", hz(b.lo_hz), hz(b.hi_hz),
                        hz(b.centre_hz));
    if (phase) html += cell(b.cycles < kMinCycles, fmt::format("{:.1f}", b.cycles));
    html += b.order > 0 ? cell(b.order_cut(), fmt::format("{} of {}", b.order, b.order_asked))
                        : "<td>given bands: no filter</td>";
    html += b.order > 0 ? cell(b.edges_dominate(), fmt::format("{} ({:.0f} %)", b.edge_samples, 100 * b.edge_fraction))
                        : "<td>–</td>";
    if (phase && k < shapes.size()) {
      const PhaseBandShape& w = shapes[k];
      html += w.judged == 0 ? "<td>no rhythm stands out of the noise</td>"
                            : cell(w.non_sinusoidal, fmt::format("{:.2f} ({}{}; {} channel{} judged)", w.share,
                                                                 html_escaped(w.channel),
                                                                 w.harmonics ? "" : ", harmonics within the noise",
                                                                 w.judged, w.judged == 1 ? "" : "s"));
    }
    html += "</tr>\n";
  }
  return html;
}

std::string cell_matrix(const Validity& v) {
  std::string html = "<table class=\"cells\"><tr><th>amplitude \\ phase (Hz)</th>";
  for (const BandValidity& p : v.phase) html += fmt::format("<th class=\"num\">{}</th>", hz(p.centre_hz));
  html += "</tr>\n";
  for (std::size_t a = v.amplitude.size(); a-- > 0;) {
    html += fmt::format("<tr><th class=\"num\">{}</th>", hz(v.amplitude[a].centre_hz));
    for (std::size_t p = 0; p < v.phase.size(); ++p) {
      const std::string flags = v.flags(p, a);
      html += flags.empty() ? "<td class=\"ok\">✓</td>" : fmt::format("<td class=\"flag\">{}</td>", flags);
    }
    html += "</tr>\n";
  }
  return html + "</table>\n";
}

std::string waveform_rule(const Validity& v, const std::vector<PhaseBandShape>& shapes, std::int64_t cells) {
  if (shapes.empty())
    return "<li><b>W</b>, waveform shape: not measured in this run (add <code>stage waveform</code> after hilbert to "
           "judge whether each phase band's rhythm is a sinusoid).</li>\n";
  return fmt::format("<li><b>W</b>: the phase band's rhythm is not a sinusoid: in some channel, harmonics that stand "
                     "out of the epochs' scatter hold more than {:.0f} % of its phase-locked waveform's power, and "
                     "can make coupling of their own (Cole &amp; Voytek 2017) — {} of {} cells.</li>\n",
                     100 * kMaxHarmonicShare, v.cells_flagged('W'), cells);
}

std::string validity_section(const json& report, const std::vector<PhaseBandShape>& shapes) {
  std::string html = "<section id=\"validity\"><h2>Validity diagnostics</h2>\n";
  Validity v;
  try {
    v = validity_of(read_run_facts(report));
  } catch (const std::exception& e) {
    return html + fmt::format("<p>None: {}</p></section>\n", html_escaped(e.what()));
  }
  if (shapes.size() == v.phase.size())
    for (const PhaseBandShape& w : shapes) v.non_sinusoidal.push_back(w.non_sinusoidal);
  if (v.phase.empty() || v.amplitude.empty())
    return html + "<p>None: this run has no phase and amplitude bands.</p></section>\n";
  const std::int64_t cells = static_cast<std::int64_t>(v.phase.size() * v.amplitude.size());
  html += fmt::format(
      "<p>What each cell of the comodulogram rests on, over the analysed window of {} samples ({:.3g} s). A cell "
      "is flagged for each rule it breaks:</p>\n<ul>\n"
      "<li><b>C</b>: fewer than {:g} cycles of the phase band in the window: its phase distribution is poorly "
      "sampled (Tort et al. 2010) — {} of {} cells.</li>\n"
      "<li><b>B</b>: amplitude band narrower than twice the phase frequency: it cannot hold the sidebands f_amp ± "
      "f_pha that coupling makes, so coupling there is attenuated or missed (Aru et al. 2015) — {} of {} cells.</li>\n"
      "<li><b>E</b>: more than {:.0f} % of the window lies within one filter length of an end, where the filter's "
      "padding rather than the data shapes the signal — {} of {} cells.</li>\n"
      "<li><b>O</b>: a filter order cut below what its cycles ask for, because the series is short (spec §3) — {} "
      "of {} cells.</li>\n",
      v.samples, static_cast<double>(v.samples) / v.sample_rate_hz, kMinCycles, v.cells_flagged('C'), cells,
      v.cells_flagged('B'), cells, 100 * kMaxEdgeFraction, v.cells_flagged('E'), cells, v.cells_flagged('O'), cells);
  html += waveform_rule(v, shapes, cells) + "</ul>\n";
  html += "<h3>Cells (✓: no rule broken)</h3>\n" + cell_matrix(v);
  html += std::string("<h3>Phase bands</h3>\n<table><tr><th>band (Hz)</th><th>centre (Hz)</th><th>cycles in the window</th>"
                      "<th>filter order used of asked</th><th>samples within a filter length of an end</th>") +
          (shapes.empty() ? "" : "<th>waveform: harmonic share (largest; where)</th>") + "</tr>\n" +
          band_rows(v.phase, true, shapes) + "</table>\n";
  html += "<h3>Amplitude bands</h3>\n<table><tr><th>band (Hz)</th><th>centre (Hz)</th>"
          "<th>filter order used of asked</th><th>samples within a filter length of an end</th></tr>\n" +
          band_rows(v.amplitude, false, {}) + "</table>\n";
  return html + "</section>\n";
}

std::string methods_section(const json& report) {
  std::string html = "<section id=\"methods\"><h2>Methods</h2>\n";
  try {
    const MethodsText text = methods_text(report);
    html += "<p>" + html_escaped(text.paragraph) + "</p>\n<h3>References</h3>\n<ul>\n";
    for (const std::string& r : text.references) html += "<li>" + html_escaped(r) + "</li>\n";
    html += "</ul>\n";
  } catch (const std::exception& e) {
    html += "<p>No methods paragraph: " + html_escaped(e.what()) + "</p>\n";
  }
  return html + "</section>\n";
}

std::string warnings_section(const json& report) {
  std::string html = "<section id=\"warnings\"><h2>Warnings</h2>\n";
  const json warnings = report.value("warnings", json::array());
  if (warnings.empty()) return html + "<p>The run gave no warning.</p></section>\n";
  for (const json& w : warnings)
    html += "<p class=\"warning\">" + html_escaped(w.is_string() ? w.get<std::string>() : json_text(w)) + "</p>\n";
  return html + "</section>\n";
}

std::string pipeline_section(const json& report) {
  std::string html = "<section id=\"pipeline\"><h2>Pipeline and parameters</h2>\n<p>Every element in order, with "
                     "every parameter as the run resolved it (defaults included).</p>\n";
  for (const json& e : report.value("pipeline", json::array())) {
    html += fmt::format("<h3>{} <code>{}</code>{}</h3>\n<table>", html_escaped(e.value("kind", std::string())),
                        html_escaped(e.value("name", std::string())),
                        e.contains("device") ? " on " + html_escaped(shown(e["device"])) : "");
    const json params = e.value("params", json::object());  // named: items() refers to it
    for (const auto& [key, value] : params.items())
      html += fmt::format("<tr><th>{}</th><td class=\"value\">{}</td></tr>", html_escaped(key), html_escaped(shown(value)));
    html += "</table>\n";
  }
  return html + "</section>\n";
}

std::string provenance_section(const json& report) {
  std::string html = "<section id=\"provenance\"><h2>Provenance</h2>\n<table>";
  const json provenance = report.value("provenance", json::object());
  for (const auto& [key, value] : provenance.items())
    html += fmt::format("<tr><th>{}</th><td class=\"value\">{}</td></tr>", html_escaped(key), html_escaped(shown(value)));
  return html + "</table></section>\n";
}

std::string files_section(const json& report) {
  std::string html = "<section id=\"files\"><h2>Files</h2>\n<table><tr><th>file</th><th>sink</th><th>holds</th></tr>";
  for (const json& f : report.value("files", json::array()))
    html += fmt::format("<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                        html_escaped(f.value("path", std::string())), html_escaped(f.value("sink", std::string())),
                        html_escaped(f.value("what", std::string())));
  return html + "</table></section>\n";
}

}  // namespace

std::string html_escaped(const std::string& raw) {
  const std::string text = utf8_text(raw);  // the page is UTF-8: other bytes (a Latin-1 label) become U+FFFD
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string page_start(const std::string& title) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n",
                     html_escaped(title), kStyle);
}

std::string figure_html(const ReportFigure& figure, std::size_t number) {
  return fmt::format("<figure id=\"figure-{}\"><img alt=\"{}\" src=\"data:image/svg+xml;base64,{}\">\n"
                     "<figcaption>Figure {}: {} (drawn as the png sink draws {}).</figcaption></figure>\n",
                     number, html_escaped(figure.title), base64(figure.svg), number, html_escaped(figure.title),
                     html_escaped(figure.file));
}

std::string page_end() { return "</body>\n</html>\n"; }

std::string report_html(const json& report, const std::vector<ReportFigure>& figures,
                        const std::vector<PhaseBandShape>& shapes) {
  return page_start("PAC report: " + input_words(report)) + header(report) + figures_section(figures) +
         validity_section(report, shapes) + methods_section(report) + warnings_section(report) + pipeline_section(report) +
         provenance_section(report) + files_section(report) + page_end();
}

}  // namespace pacflow::report
