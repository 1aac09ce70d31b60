#pragma once
// The sentences of a methods paragraph, each from the facts it states (methods_text.cpp puts them
// together): the data and its preprocessing, the filters and the analytic signal, the measure (in
// methods_signal.cpp); the surrogates, the trial-level test, conditions, erpac and what to report
// (in methods_statistics.cpp). Each returns "" when the run has no such step.
#include <string>

#include "pipelines/report/references.hpp"
#include "pipelines/report/run_facts.hpp"
#include "pipelines/report/wording.hpp"

namespace pacflow::report {

std::string data_sentences(const RunFacts& f);
std::string preprocessing_sentences(const RunFacts& f, Citations& cite);
std::string filter_sentences(const RunFacts& f, Citations& cite);
std::string measure_sentence(const RunFacts& f, Citations& cite);
std::string surrogate_sentences(const RunFacts& f, Citations& cite);
std::string trial_sentences(const RunFacts& f, Citations& cite);
std::string erpac_sentence(const RunFacts& f, Citations& cite);
std::string reporting_sentence(const RunFacts& f);

}  // namespace pacflow::report
