// Sink report (issue 40, items 3 and 4): one self-contained HTML page per run, checked as a file (no
// network, every section, the figures decodable SVG, the diagnostics of every cell) and as a person
// sees it: rendered by headless Chromium (Debian's), its visible text and its pixels.
#include <gtest/gtest.h>

#include <openssl/evp.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>

#include "engine/io/npy.hpp"
#include "stages/io/png/canvas.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::run_cli;
using testing::run_program;
using testing::ScratchDir;

// 4 epochs x 3 channels coupled at 6 Hz x 80 Hz, 4 x 5 cells, the trial-level test, both figure sinks.
constexpr const char* kPipe =
    "source synthetic fs=512 epochs=4 channels=3 seconds=4 f_pha=6 f_amp=80 noise=0.5 pha_bw=0.5 seed=1\n"
    "stage bandpass pha=4:10:4 amp=60:120:5\nstage hilbert\nstage mi bins=18\n"
    "stage surrogates n=50 seed=1 min_shift=1s\nsink npy dir=out\nsink report path=out/report.html\n";

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

std::string unbase64(const std::string& text) {
  std::string out(text.size() / 4 * 3 + 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  out.resize(n < 0 ? 0 : static_cast<std::size_t>(n));
  return out;
}

struct Report {
  ScratchDir dir{"report"};
  std::string html;
  Report() {
    dir.write("p.pipe", kPipe);
    const testing::CliResult r = run_cli("run -q p.pipe", dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    html = read_file(dir / "out/report.html");
  }
};

TEST(ReportSink, OneSelfContainedPageWithEverySectionTheFiguresAndEachCellsDiagnostics) {
  const Report report;
  const std::string& html = report.html;
  ASSERT_FALSE(html.empty());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // Nothing fetched: no script, no stylesheet link, no address of another host or file.
  for (const char* absent : {"<script", "<link", "http://", "https://", "src=\"file:", "@import", "url("})
    EXPECT_EQ(html.find(absent), std::string::npos) << absent;
  for (const char* section : {"id=\"figures\"", "id=\"validity\"", "id=\"methods\"", "id=\"warnings\"",
                              "id=\"pipeline\"", "id=\"provenance\"", "id=\"files\""})
    EXPECT_EQ(count(html, section), 1u) << section;
  // Two figures (the mean and one panel per channel), each an SVG drawing inline.
  const std::string prefix = "src=\"data:image/svg+xml;base64,";
  std::size_t images = 0;
  for (std::size_t at = html.find(prefix); at != std::string::npos; at = html.find(prefix, at + 1), ++images) {
    const std::size_t first = at + prefix.size();
    EXPECT_NE(unbase64(html.substr(first, html.find('"', first) - first)).find("<svg"), std::string::npos);
  }
  EXPECT_EQ(images, 2u);
  // The diagnostics: 4 phase x 5 amplitude cells, one entry each, and the band tables.
  const std::size_t matrix = html.find("<table class=\"cells\">");
  ASSERT_NE(matrix, std::string::npos);
  const std::string cells = html.substr(matrix, html.find("</table>", matrix) - matrix);
  EXPECT_EQ(count(cells, "<td class=\"ok\">") + count(cells, "<td class=\"flag\">"), 20u);
  // The 4 Hz band's filter (order 3 x floor(512 / 3) = 510) reaches 1020 of 2048 samples: flagged E.
  EXPECT_NE(html.find("1020 (50 %)"), std::string::npos);
  EXPECT_NE(html.find("Aru et al. 2015"), std::string::npos);
  // The methods paragraph and its references, every resolved parameter, the provenance.
  EXPECT_NE(html.find("Phase-amplitude coupling (PAC) was computed with pacflow"), std::string::npos);
  EXPECT_NE(html.find("Tort ABL, Komorowski R"), std::string::npos);
  EXPECT_NE(html.find("<th>amp_filter_orders</th>"), std::string::npos);
  EXPECT_NE(html.find("<th>command_line</th>"), std::string::npos);
  EXPECT_NE(html.find("<code>report.html</code>"), std::string::npos) << "the files table lists the report";
}

// A pipeline with nothing to draw (no mi, no erpac) still gets its page: no figure, and it says so.
TEST(ReportSink, APipelineWithoutAComodulogramGetsAPageThatSaysSo) {
  const ScratchDir dir("report_plain");
  dir.write("p.pipe", "source synthetic fs=256 epochs=2 channels=2 seconds=2 seed=1\n"
                      "stage bandpass pha=4:8:2 amp=60:80:2\nstage hilbert\nsink report path=out/report.html\n");
  const testing::CliResult r = run_cli("run -q p.pipe", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read_file(dir / "out/report.html");
  EXPECT_NE(html.find("This run draws no figure"), std::string::npos);
  EXPECT_NE(html.find("id=\"validity\""), std::string::npos);
}

TEST(ReportSink, TextFromTheRunIsEscaped) {
  const ScratchDir dir("report_escape");
  dir.write("p.pipe", std::string(kPipe) + "sink png path=\"out/<b>x&y</b>.png\"\n");
  ASSERT_EQ(run_cli("run -q p.pipe", dir.path()).exit_code, 0);
  const std::string html = read_file(dir / "out/report.html");
  EXPECT_EQ(html.find("<b>x&y</b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;x&amp;y&lt;/b&gt;"), std::string::npos);
}

// Stage waveform: a 6 Hz sawtooth (harmonic share about 0.39) is flagged W in the 6 Hz phase band; the
// synthetic data's sinusoids are not.
TEST(ReportSink, ANonSinusoidalRhythmIsFlaggedInItsPhaseBand) {
  const ScratchDir dir("report_waveform");
  std::mt19937 random(11);
  std::normal_distribution<float> noise(0.0f, 0.3f);
  NpyWriter writer(dir / "saw.npy", {6, 2, 2048});
  std::vector<float> row(2048);
  for (int series = 0; series < 12; ++series) {
    for (int t = 0; t < 2048; ++t) {
      const double cycles = 6.0 * t / 512.0 + 0.1 * series;
      row[static_cast<std::size_t>(t)] = static_cast<float>(2 * (cycles - std::floor(cycles)) - 1) + noise(random);
    }
    writer.append(row.data(), 2048);
  }
  writer.commit();
  const std::string stages = "stage bandpass pha=[[5,7],[15,21]] amp=60:100:3\nstage hilbert\nstage waveform\nstage mi\n"
                             "sink report path=out/report.html\n";
  dir.write("saw.pipe", "source npy path=saw.npy fs=512\n" + stages);
  ASSERT_EQ(run_cli("run -q saw.pipe", dir.path()).exit_code, 0);
  const std::string html = read_file(dir / "out/report.html");
  const std::size_t table = html.find("<h3>Phase bands</h3>");
  ASSERT_NE(table, std::string::npos);
  const std::string rows = html.substr(table, html.find("</table>", table) - table);
  const std::size_t six = rows.find("<td class=\"num\">5–7</td>"), eighteen = rows.find("<td class=\"num\">15–21</td>");
  ASSERT_NE(six, std::string::npos);
  ASSERT_NE(eighteen, std::string::npos);
  const std::string six_row = rows.substr(six, eighteen - six);
  EXPECT_NE(six_row.find("<td class=\"num flag\">0.3"), std::string::npos) << six_row;
  EXPECT_NE(html.find("<td class=\"flag\">BW</td>"), std::string::npos) << "the 6 Hz column's cells carry W";

  dir.write("sine.pipe", "source synthetic fs=512 epochs=6 channels=2 seconds=4 f_pha=6 f_amp=80 seed=2\n" + stages);
  ASSERT_EQ(run_cli("run -q sine.pipe", dir.path()).exit_code, 0);
  const std::string sine = read_file(dir / "out/report.html");
  EXPECT_EQ(sine.find("W</td>"), std::string::npos) << "no cell of sinusoids is flagged W";
  EXPECT_NE(sine.find("waveform: harmonic share"), std::string::npos);
}

// A dataset: one page per recording, in its folder, and the dataset's page at the sink's path with
// the group result and a link to each recording's page.
TEST(ReportSink, ADatasetGetsAPagePerRecordingAndOneForTheGroupLinkingThem) {
  const ScratchDir dir("report_dataset");
  fs::create_directories(dir / "raw");
  std::string table = "id\tpath\tfs\n";
  std::mt19937 random(7);
  std::normal_distribution<float> noise;
  for (int k = 1; k <= 4; ++k) {
    const std::string id = "sub-0" + std::to_string(k);
    NpyWriter writer(dir / "raw" / (id + ".npy"), {6, 2, 1024});
    std::vector<float> row(1024);
    for (int series = 0; series < 12; ++series) {
      for (int t = 0; t < 1024; ++t)
        row[static_cast<std::size_t>(t)] = noise(random) + static_cast<float>((1 + std::sin(2 * M_PI * 6 * t / 512.0)) *
                                                                              std::sin(2 * M_PI * 80 * t / 512.0));
      writer.append(row.data(), 1024);
    }
    writer.commit();
    table += id + "\traw/" + id + ".npy\t512\n";
  }
  dir.write("subjects.tsv", table);
  dir.write("ds.pipe", "source manifest path=subjects.tsv\nstage bandpass pha=4:12:3 amp=60:100:3\nstage hilbert\n"
                       "stage mi\nstage surrogates n=20 seed=3 min_shift=0.5s\nsink npy dir=out\n"
                       "sink report path=out/report.html\n");
  const testing::CliResult r = run_cli("run -q ds.pipe", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = read_file(dir / "out/report.html");
  EXPECT_NE(page.find("Phase-amplitude coupling report: a dataset"), std::string::npos);
  EXPECT_NE(page.find("id=\"group\""), std::string::npos);
  for (int k = 1; k <= 4; ++k) {
    const std::string link = "sub-0" + std::to_string(k) + "/report.html";
    EXPECT_NE(page.find("<a href=\"" + link + "\">"), std::string::npos) << link;
    const std::string recording = read_file(dir / "out" / link);
    EXPECT_NE(recording.find("Phase-amplitude coupling report</h1>"), std::string::npos) << link;
    EXPECT_NE(recording.find("id=\"validity\""), std::string::npos) << link;
  }
  for (const char* absent : {"<script", "http://", "https://"}) EXPECT_EQ(page.find(absent), std::string::npos);
  // A recording whose folder would be the dataset's page is refused at its line, nothing written.
  dir.write("clash.tsv", "id\tpath\tfs\nreport.html\traw/sub-01.npy\t512\n");
  dir.write("clash.pipe", "source manifest path=clash.tsv\nstage bandpass pha=4:12:3 amp=60:100:3\nstage hilbert\n"
                          "stage mi\nsink report path=clash/report.html\n");
  const testing::CliResult clash = run_cli("run -q clash.pipe", dir.path());
  EXPECT_EQ(clash.exit_code, 2);
  EXPECT_NE(clash.err.find("clash.tsv:2"), std::string::npos) << clash.err;
  EXPECT_NE(clash.err.find("where the dataset's report page"), std::string::npos) << clash.err;
  EXPECT_FALSE(fs::exists(dir / "clash"));
  // The group tests of four subjects, each with its figure (or the reason none was made).
  const bool tested = page.find("<code>group</code>") != std::string::npos;
  EXPECT_TRUE(tested || page.find("No group-level test: ") != std::string::npos);
  if (tested) {
    EXPECT_GE(count(page, "data:image/svg+xml;base64,"), 1u);
  }
}

// The browser, when there is one: Debian's chromium (tools/setup.sh --tests installs it).
std::string chromium() {
  const testing::CliResult found =
      run_program("/bin/sh", "-c 'command -v chromium || command -v chromium-browser'", fs::current_path());
  std::string path = found.out.substr(0, found.out.find('\n'));
  return found.exit_code == 0 ? path : "";
}

std::string headless(const std::string& browser, const std::string& args, const fs::path& cwd) {
  return browser + " --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run "
                   "--disable-background-networking --user-data-dir=" +
         (cwd / "chromium-profile").string() + " " + args;
}

TEST(ReportSink, RenderedByChromiumItShowsItsTextAndFigures) {
  const std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "no chromium on PATH (tools/setup.sh --tests installs Debian's)";
  const Report report;
  const fs::path page = report.dir / "out/report.html";
  // The text a reader sees, from the page as printed.
  const testing::CliResult printed = run_program(
      "/bin/sh", "-c '" + headless(browser, "--print-to-pdf=" + (report.dir / "page.pdf").string(), report.dir.path()) +
                     " file://" + page.string() + " 2>/dev/null'", report.dir.path());
  ASSERT_TRUE(fs::exists(report.dir / "page.pdf")) << printed.err;
  const testing::CliResult text = run_program("pdftotext", "-layout " + (report.dir / "page.pdf").string() + " -",
                                              report.dir.path());
  if (text.exit_code == 127) GTEST_SKIP() << "no pdftotext (poppler-utils)";
  for (const char* shown : {"Phase-amplitude coupling report", "Figures", "Validity diagnostics", "Methods",
                            "References", "Pipeline and parameters", "Provenance", "Figure 1:", "Figure 2:",
                            "amplitude band narrower than twice the phase frequency"})
    EXPECT_NE(text.out.find(shown), std::string::npos) << shown;
  // The figures as drawn: the viridis colours of the heat maps fill the top of the page.
  const fs::path shot = report.dir / "shot.png";
  run_program("/bin/sh", "-c '" + headless(browser, "--window-size=1200,1400 --screenshot=" + shot.string(),
                                           report.dir.path()) + " file://" + page.string() + " 2>/dev/null'",
              report.dir.path());
  ASSERT_TRUE(fs::exists(shot));
  const plot::Image image = plot::decode_png(read_file(shot), shot.string());
  std::size_t coloured = 0;  // pixels of the heat map: saturated, far from grey
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const plot::Rgb c = image.at(x, y);
      coloured += std::max({c.r, c.g, c.b}) - std::min({c.r, c.g, c.b}) > 60 ? 1 : 0;
    }
  EXPECT_GT(coloured, 100000u) << "the first figure (600 x 400 pixels of cells at least) is drawn";
}

}  // namespace
}  // namespace pacflow
