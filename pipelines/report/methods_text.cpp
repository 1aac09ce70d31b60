#include "pipelines/report/methods_text.hpp"

#include <fmt/format.h>

#include "pipelines/report/methods_sentences.hpp"

namespace pacflow::report {

namespace {

// "pacflow 0.1.0 (18aae9e)": the version and what git calls the build's commit.
std::string software(const SoftwareFacts& s) {
  const std::string commit = !s.describe.empty() ? s.describe : s.commit.substr(0, 12);
  return fmt::format("pacflow {}{}", s.version,
                     commit.empty() || commit == "unknown" ? "" : fmt::format(" (commit {})", commit));
}

}  // namespace

std::string MethodsText::markdown() const {
  std::string out = paragraph + "\n\nReferences\n\n";
  for (const auto& r : references) out += "- " + r + "\n";
  return out;
}

MethodsText methods_text(const RunFacts& f) {
  Citations cite;
  std::vector<std::string> sentences = {
      fmt::format("Phase-amplitude coupling (PAC) was computed with {}.", software(f.software)),
      data_sentences(f),
      preprocessing_sentences(f, cite),
      filter_sentences(f, cite),
      measure_sentence(f, cite),
      surrogate_sentences(f, cite),
      trial_sentences(f, cite),
      erpac_sentence(f, cite),
      reporting_sentence(f),
  };
  MethodsText text;
  for (const auto& s : sentences)
    if (!s.empty()) text.paragraph += (text.paragraph.empty() ? "" : " ") + s;
  text.references = cite.list();
  text.references.push_back(
      fmt::format("The pacflow developers. pacflow: phase-amplitude coupling as a dataflow "
                  "pipeline. Version {}. Software; cite it as its CITATION.cff says.",
                  software(f.software).substr(8)));
  return text;
}

MethodsText methods_text(const nlohmann::json& report) { return methods_text(read_run_facts(report)); }

}  // namespace pacflow::report
