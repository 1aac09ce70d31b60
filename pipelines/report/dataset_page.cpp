#include "pipelines/report/dataset_page.hpp"

#include <fmt/format.h>

namespace pacflow::report {

namespace {

std::string group_section(const DatasetPage& page) {
  std::string html = "<section id=\"group\"><h2>Group result</h2>\n";
  if (!page.group) return html + "<p>No group-level test: the dataset ran with group=none.</p></section>\n";
  const group::GroupReport& g = *page.group;
  if (g.skipped) return html + "<p>No group-level test: " + html_escaped(*g.skipped) + "</p></section>\n";
  html += fmt::format("<p>The subjects' <code>{}</code> tested across subjects by sign flips ({} flips, seed {}); "
                      "clusters formed at p &lt; {:g} and tested by their mass.</p>\n",
                      html_escaped(g.statistic), g.settings.flips, g.settings.seed, g.settings.cluster_p);
  html += "<table><tr><th>test</th><th>what it tests</th><th>subjects</th><th>smallest possible p</th>"
          "<th>clusters</th><th>smallest cluster p</th><th>cells significant (max-T, p ≤ 0.05)</th>"
          "<th>cells in significant clusters</th></tr>\n";
  for (const group::TestReport& t : g.tests)
    html += fmt::format("<tr><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.3g}{}</td>"
                        "<td class=\"num\">{}</td><td class=\"num\">{:.3g}</td><td class=\"num\">{}</td>"
                        "<td class=\"num\">{}</td></tr>\n",
                        html_escaped(t.prefix), html_escaped(t.test), t.subjects, t.p_floor, t.exact ? " (exact)" : "",
                        t.clusters.size(), t.best_cluster_p(), t.significant_cells_maxstat, t.significant_cells_cluster);
  html += "</table>\n";
  for (std::size_t k = 0; k < page.group_figures.size(); ++k) html += figure_html(page.group_figures[k], k + 1);
  return html + "</section>\n";
}

std::string recordings_section(const DatasetPage& page) {
  std::string html = fmt::format("<section id=\"recordings\"><h2>Recordings</h2>\n<p>{} recordings, each with its own "
                                 "page: its figures, validity diagnostics, methods and parameters.</p>\n<table><tr>"
                                 "<th>recording</th><th>its page</th><th>run</th></tr>\n",
                                 page.recordings.size());
  for (const RecordingRow& r : page.recordings)
    html += fmt::format("<tr><td>{}</td><td><a href=\"{}\">{}</a></td><td>{}</td></tr>\n", html_escaped(r.id),
                        html_escaped(r.page), html_escaped(r.page), html_escaped(r.note));
  return html + "</table></section>\n";
}

std::string dataset_warnings_section(const DatasetPage& page) {
  std::string html = "<section id=\"warnings\"><h2>Warnings</h2>\n";
  if (page.warnings.empty()) return html + "<p>The dataset gave no warning (each recording's page lists its own).</p></section>\n";
  for (const std::string& w : page.warnings) html += "<p class=\"warning\">" + html_escaped(w) + "</p>\n";
  return html + "</section>\n";
}

}  // namespace

std::string dataset_page_html(const DatasetPage& page) {
  return page_start("PAC report: dataset " + page.dataset) +
         fmt::format("<header><h1>Phase-amplitude coupling report: a dataset</h1>\n<p class=\"summary\">{}: {} "
                     "recordings.</p>\n<nav><a href=\"#group\">Group result</a><a href=\"#recordings\">Recordings</a>"
                     "<a href=\"#warnings\">Warnings</a></nav></header>\n",
                     html_escaped(page.dataset), page.recordings.size()) +
         group_section(page) + recordings_section(page) + dataset_warnings_section(page) + page_end();
}

}  // namespace pacflow::report
