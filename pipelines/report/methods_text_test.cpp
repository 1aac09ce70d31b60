// The methods paragraph of real runs' result.json: the numbers it states are the run's, and the
// works it cites are exactly those the run used; the p-values to report are named with their test
// and family.
#include "pipelines/report/methods_text.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "engine/api/errors.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/io/provenance.hpp"
#include "pipelines/report/report_file.hpp"
#include "pipelines/report/significance.hpp"
#include "stages/builtin.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow::report {
namespace {

namespace fs = std::filesystem;

// 8 epochs x 2 channels x 2 s at 256 Hz, 3 x 3 bands, the given measure and surrogates; the npy
// sink's result.json read back as `pipeline_cli methods` reads it.
json run_report(const fs::path& out, json mi, json surrogates, bool with_surrogates = true) {
  Pipeline p(stages::builtin_registry());
  p.source("synthetic", {{"fs", 256},
                         {"epochs", 8},
                         {"channels", 2},
                         {"seconds", 2},
                         {"f_pha", 6},
                         {"f_amp", 60},
                         {"chi", 0},
                         {"noise", 0.5},
                         {"pha_bw", 0.5},
                         {"seed", 3}});
  p.stage("bandpass", {{"pha", "4:8:3"}, {"amp", "50:70:3"}});
  p.stage("hilbert");
  if (mi.is_object() && mi.value("method", "") == "plv") p.stage("envelope_phase");
  p.stage("mi", mi);
  if (with_surrogates) p.stage("surrogates", surrogates);
  p.sink("npy", {{"dir", out.string()}});
  RunOptions options;
  options.provenance = collect_provenance({"methods_text_test"}, 0);
  p.run(options);
  return read_run_report(out);
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

bool cites(const MethodsText& m, const std::string& author) {
  return std::any_of(m.references.begin(), m.references.end(),
                     [&](const std::string& r) { return r.rfind(author, 0) == 0; });
}

TEST(MethodsText, StatesTheRunsNumbersAndCitesWhatItUsed) {
  const testing::ScratchDir dir("methods_default");
  const json report = run_report(dir.path(), {{"bins", 18}}, {{"n", 200}, {"min_shift", "0.5s"}, {"seed", 42}});
  const MethodsText m = methods_text(report);
  const std::string& t = m.paragraph;
  EXPECT_EQ(t.find('\n'), std::string::npos) << "one paragraph";
  for (const char* part : {"8 epochs of 2 channels",
                           "2 s long (512 samples at 256 Hz)",
                           "3 phase bands (3–5 Hz, 4.5–7.5 Hz and 6–10 Hz)",
                           "3 amplitude bands (43.75–56.25 Hz, 52.5–67.5 Hz and 61.25–78.75 Hz)",
                           "3 periods of the band's lower edge for the phase bands (170–126, shortened",
                           "6 for the amplitude bands (30–24)",
                           "18 phase bins",
                           "modulation index",
                           "200 surrogates",
                           "0.5 s to the series' length minus 0.5 s (128–384 samples)",
                           "seed 42",
                           "1/201",
                           "mean over its 8 epochs",
                           "200 random permutations of the epochs",
                           "blocks of 8 consecutive epochs",
                           "max-T",
                           "trial_pvalues",
                           "α = 0.05",
                           "Hilbert",
                           "Hamming"})
    EXPECT_TRUE(has(t, part)) << "missing \"" << part << "\" in:\n" << t;
  EXPECT_TRUE(has(t, "over " + describe_test(read_run_facts(report)).family)) << "the family, as result.json has it";
  EXPECT_TRUE(has(t, "pacflow " + engine_version())) << t;
  EXPECT_TRUE(has(t, build_describe())) << "the commit: " << t;
  // Tort's MI, time-shift surrogates and z-scores, Phipson-Smyth p-values, max-T; nothing else.
  for (const char* author : {"Tort ABL", "Canolty RT", "Phipson B", "Nichols TE", "Combrisson E"})
    EXPECT_TRUE(cites(m, author)) << author;
  for (const char* author : {"Özkurt", "Penny", "Lachaux", "Lakatos", "Ince", "Voytek", "Benjamini"})
    EXPECT_FALSE(cites(m, author)) << author;
  for (const char* in_text : {"Tort et al. 2010", "Nichols and Holmes 2002", "Phipson and Smyth 2010"})
    EXPECT_TRUE(has(t, in_text)) << in_text;
  EXPECT_TRUE(has(m.references.back(), "pacflow")) << "the software last";
  EXPECT_TRUE(has(m.markdown(), "\n\nReferences\n\n- Canolty RT")) << m.markdown();
}

TEST(MethodsText, CitesTheMeasureAndCorrectionTheRunChose) {
  const testing::ScratchDir dir("methods_plv");
  const MethodsText plv =
      methods_text(run_report(dir / "plv", {{"method", "plv"}}, {{"n", 50}, {"min_shift", "0.5s"}, {"trials", "fdr"}}));
  EXPECT_TRUE(has(plv.paragraph, "phase-locking value")) << plv.paragraph;
  EXPECT_TRUE(has(plv.paragraph, "Benjamini–Hochberg")) << plv.paragraph;
  EXPECT_TRUE(has(plv.paragraph, "50 surrogates")) << plv.paragraph;
  for (const char* author : {"Penny WD", "Lachaux JP", "Benjamini Y"}) EXPECT_TRUE(cites(plv, author)) << author;
  EXPECT_FALSE(cites(plv, "Tort ABL")) << "no modulation index, no swap-trials surrogates";
  EXPECT_FALSE(has(plv.paragraph, "max-T")) << plv.paragraph;

  const MethodsText none = methods_text(run_report(dir / "none", {{"method", "mvl"}}, {}, false));
  EXPECT_TRUE(has(none.paragraph, "mean vector length")) << none.paragraph;
  EXPECT_TRUE(cites(none, "Canolty RT"));
  for (const char* author : {"Phipson", "Nichols", "Benjamini", "Tort"}) EXPECT_FALSE(cites(none, author)) << author;
  EXPECT_FALSE(has(none.paragraph, "significant")) << "no test, nothing called significant: " << none.paragraph;
}

TEST(MethodsText, NamesTheFamilyTheTrialTestCorrectsOver) {
  const testing::ScratchDir dir("methods_family");
  json report = run_report(dir.path(), json::object(), {{"n", 100}, {"min_shift", "0.5s"}});
  const auto set_family = [&](const json& value) {
    for (auto& e : report["pipeline"])
      if (e["name"] == "surrogates") {
        if (value.is_null())
          e["params"].erase("trial_family");
        else
          e["params"]["trial_family"] = value;
      }
    if (value.is_null()) report.erase("trial_family");
  };
  set_family("cells");  // each channel's cells apart
  const TestDescription cells = describe_test(read_run_facts(report));
  EXPECT_EQ(cells.array, "trial_pvalues");
  EXPECT_EQ(cells.correction, "maxstat");
  EXPECT_TRUE(has(cells.family, "each channel's 9 cells (3 phase × 3 amplitude bands)")) << cells.family;
  EXPECT_TRUE(has(cells.family, "one channel at a time and not across the 2 channels")) << cells.family;
  EXPECT_DOUBLE_EQ(cells.p_floor, 1.0 / 101);
  EXPECT_TRUE(has(methods_text(report).paragraph, "over each channel's 9 cells"));
  // Reports from before trial_family corrected each channel's cells apart.
  set_family(nullptr);
  EXPECT_EQ(describe_test(read_run_facts(report)).family, cells.family);
  // A test over every channel's cells at once says so.
  set_family("channels");
  const TestDescription joint = describe_test(read_run_facts(report));
  EXPECT_TRUE(has(joint.family, "the cells of all 2 channels jointly (18 tests)")) << joint.family;
  EXPECT_TRUE(has(methods_text(report).paragraph, "jointly (18 tests)"));
  // Per-series p-values, asked for by name; a contrast the run has not made is refused with the reason.
  EXPECT_EQ(describe_test(read_run_facts(report), "pvalues_maxstat").correction, "maxstat");
  try {
    describe_test(read_run_facts(report), "contrast_pvalues");
    FAIL() << "no conditions, no contrast";
  } catch (const InputError& e) {
    EXPECT_TRUE(has(e.what(), "no contrast_pvalues")) << e.what();
  }
}

TEST(MethodsText, DescribesConditionsAndTheirContrast) {
  const testing::ScratchDir dir("methods_conditions");
  json report = run_report(dir.path(), json::object(), {{"n", 100}, {"min_shift", "0.5s"}});
  report["input"]["conditions"] = {{{"name", "go"}, {"epochs", 4}, {"first_epoch", 0}},
                                   {{"name", "nogo"}, {"epochs", 4}, {"first_epoch", 4}}};
  for (auto& e : report["pipeline"])
    if (e["name"] == "surrogates") e["params"]["trial_conditions"] = {"go", "nogo"};
  const std::string t = methods_text(report).paragraph;
  EXPECT_TRUE(has(t, "2 conditions (go, 4 epochs; nogo, 4 epochs)")) << t;
  EXPECT_TRUE(has(t, "go minus nogo")) << t;
  EXPECT_TRUE(has(t, "8 consecutive epochs and condition")) << t;
  EXPECT_TRUE(
      has(describe_test(read_run_facts(report), "contrast_pvalues").test, "permutations of the condition labels"));
  // A contrast result.json records as Welch's t of the epochs' z is described, and cited, as such,
  // with its own smallest p-value.
  for (auto& e : report["pipeline"])
    if (e["name"] == "surrogates") {
      e["params"]["contrast_statistic"] = "welch_t_of_pac_z";
      e["params"]["contrast_p_floor"] = 2.0 / 70;
    }
  EXPECT_DOUBLE_EQ(describe_test(read_run_facts(report), "contrast_pvalues").p_floor, 2.0 / 70);
  const MethodsText welch = methods_text(report);
  EXPECT_TRUE(has(welch.paragraph, "Welch's t of the epochs' z-scores")) << welch.paragraph;
  EXPECT_TRUE(cites(welch, "Janssen A") && cites(welch, "Chung E")) << welch.markdown();
  EXPECT_FALSE(cites(welch, "Aru J")) << "no evoked stage";
}

TEST(MethodsText, DescribesPreprocessingAndAnExhaustiveTest) {
  const testing::ScratchDir dir("methods_preprocessing");
  json report = run_report(dir.path(), json::object(), {{"n", 100}, {"min_shift", "0.5s"}});
  json& pipeline = report["pipeline"];
  const json as_read = "cpu, as the source reads";
  pipeline.insert(pipeline.begin() + 1,
                  {{{"kind", "stage"},
                    {"name", "notch"},
                    {"device", as_read},
                    {"params", {{"freq", 50}, {"q", 30}, {"frequencies_hz", {50, 100}}}}},
                   {{"kind", "stage"}, {"name", "reref"}, {"device", as_read}, {"params", {{"ref", "average"}}}},
                   {{"kind", "stage"}, {"name", "evoked"}, {"device", as_read}, {"params", {{"mode", "regress"}}}}});
  for (auto& e : pipeline)
    if (e["name"] == "surrogates") {
      e["params"]["trial_null"] = "every ordering of the epochs within their blocks of 4 (23 besides the observed one)";
      e["params"]["trial_permutations"] = 23;
      e["params"]["trial_p_floor"] = 1.0 / 24;
    }
  const MethodsText m = methods_text(report);
  for (const char* part : {"Line noise was removed at 50 and 100 Hz", "re-referenced to their average",
                           "evoked response", "all 24 orderings", "an exact test", "1/24"})
    EXPECT_TRUE(has(m.paragraph, part)) << part << " in:\n" << m.paragraph;
  EXPECT_TRUE(cites(m, "Aru J")) << "evoked responses and induced coupling";
}

TEST(MethodsText, RefusesAReportThatIsNotARunsNamingWhatIsMissing) {
  const testing::ScratchDir dir("methods_bad");
  try {
    methods_text(json{{"input", {{"dims", {"time"}}}}, {"pipeline", json::array()}});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_TRUE(has(e.what(), "input.shape is missing")) << e.what();
  }
  dir.write("broken.json", "{\"input\": ");
  EXPECT_THROW(read_run_report(dir / "broken.json"), InputError);
  EXPECT_THROW(read_run_report(dir / "absent"), MissingFileError);
  EXPECT_THROW(read_run_report(dir.path()), MissingFileError) << "a folder without result.json";
}

}  // namespace
}  // namespace pacflow::report
