#pragma once
// Which p-values of a run to report, and what test, correction and family they come from: the
// trial-level test's (trial_pvalues) when the run made one, else the per-series maximum statistic
// (pvalues_maxstat), else erpac's. The methods paragraph (methods_text.hpp), `Result.significant`
// in Python and the png sink's outlines all name the same array.
#include <string>

#include "pipelines/report/run_facts.hpp"

namespace pacflow::report {

struct TestDescription {
  std::string array;  // the p-value array: trial_pvalues, contrast_pvalues, pvalues_maxstat, pvalues, erpac_pvalues
  std::string test;   // what was tested against what
  std::string correction;  // maxstat, maxstat_raw, fdr, bonferroni, uncorrected
  std::string family;      // the tests one correction spans
  double p_floor = 0;      // the smallest p-value the test can give
};

// The test behind `array`, or behind the p-values to report when `array` is empty. Throws
// InputError naming the arrays the run has when it has no such p-values (no surrogates, no erpac).
TestDescription describe_test(const RunFacts& facts, const std::string& array = "");

// "max-T", "Benjamini–Hochberg FDR", …: a correction's name in a sentence.
std::string correction_name(const std::string& correction);

}  // namespace pacflow::report
