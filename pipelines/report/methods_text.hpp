#pragma once
// A methods paragraph for a run, written from its report (result.json): the data, preprocessing,
// filters, analytic signal, measure, surrogates, trial-level test with its correction and family,
// conditions, event-related PAC, which p-values to report, and the software's version and commit,
// with a reference list of exactly the works it cites. `pipeline_cli methods OUT` prints it;
// `Result.methods()` returns it in Python.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipelines/report/run_facts.hpp"

namespace pacflow::report {

struct MethodsText {
  std::string paragraph;                // one paragraph, no line breaks
  std::vector<std::string> references;  // full references of the cited works, alphabetical, then the software
  // The paragraph, a blank line, "References" and one "- " line per reference (Markdown).
  std::string markdown() const;
};

MethodsText methods_text(const RunFacts& facts);
// Throws InputError naming what is missing when `report` is not a run's report.
MethodsText methods_text(const nlohmann::json& report);

}  // namespace pacflow::report
