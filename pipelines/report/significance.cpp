#include "pipelines/report/significance.hpp"

#include <fmt/format.h>

#include <vector>

#include "engine/api/errors.hpp"
#include "pipelines/report/wording.hpp"
#include "stages/common/tensor_names.hpp"
#include "stages/kernels/surrogates/trial_statistics.hpp"

namespace pacflow::report {

namespace {

// The arrays a test writes its p-values to (stages/common/tensor_names.hpp, trial_statistics.hpp).
using stages::tensors::kErpacPvalues;
using stages::tensors::kPvalues;
using stages::tensors::kPvaluesMaxstat;
using surrogates::kContrastPvalues;
using surrogates::kTrialPvalues;

std::string panel_word(const RunFacts& f) {
  return f.measure && f.measure->pairs != "diag" ? "channel pair" : "channel";
}

std::string cells_text(const RunFacts& f) {
  if (!f.filters) return "cells";
  return fmt::format("{} ({} phase × {} amplitude bands)", plural(f.cells(), "cell"), f.filters->phase.edges.size(),
                     f.filters->amplitude.edges.size());
}

// The family of the trial-level test and of the contrast.
std::string trial_family(const RunFacts& f, const TrialFacts& t) {
  const std::string panel = panel_word(f);
  const std::int64_t panels = f.panels();
  const std::string segments = f.input.segments > 1 ? " and segment" : "";
  if (t.test == "uncorrected") return "none: each cell on its own";
  if (t.family == "channels")
    return fmt::format("the cells of all {} jointly ({} tests)", plural(panels, panel + segments),
                       panels * f.input.segments * f.cells());
  return fmt::format("each {}{}'s {}{}", panel, segments, cells_text(f),
                     panels * f.input.segments > 1
                         ? fmt::format(", one {} at a time and not across the {}", panel + segments,
                                       plural(panels * f.input.segments, panel + segments))
                         : "");
}

std::string surrogate_kind(const SurrogateFacts& s) {
  if (s.method == "swap_trials") return "epoch-swapped";
  if (s.method == "timelag") return "time-lagged (phase shifted)";
  return "time-shifted";
}

}  // namespace

std::string correction_name(const std::string& correction) {
  if (correction == "maxstat") return "max-T";
  if (correction == "maxstat_raw") return "the maximum statistic of the raw means";
  if (correction == "fdr") return "Benjamini–Hochberg FDR";
  if (correction == "bonferroni") return "Bonferroni";
  return "no correction";
}

TestDescription describe_test(const RunFacts& f, const std::string& array) {
  std::string name = array;
  if (name.empty())
    name = f.trial ? kTrialPvalues : f.surrogates ? kPvaluesMaxstat : f.erpac ? kErpacPvalues : "";
  if (name.empty())
    throw InputError("the run has no p-values: add a surrogates stage (or erpac) to the pipeline for a test");
  TestDescription d;
  d.array = name;
  const std::string panel = panel_word(f);
  if ((name == kTrialPvalues || name == kContrastPvalues) && f.trial && f.surrogates) {
    const TrialFacts& t = *f.trial;
    d.correction = t.test;
    d.family = trial_family(f, t);
    if (name == kTrialPvalues) {
      d.test =
          fmt::format("each {}'s mean over its {} against {} epoch permutations{}", panel, plural(t.epochs, "epoch"),
                      t.permutations, t.conditions.size() > 1 ? ", in each condition" : "");
      d.p_floor = t.p_floor;
      if (t.conditions.size() > 1) d.family += ", in each condition";
    } else if (t.conditions.size() == 2) {
      d.test = fmt::format(
          "the difference in coupling between {} and {} (two-sided) against {} permutations of the condition labels",
          t.conditions[0], t.conditions[1], t.permutations);
      d.p_floor = t.contrast_p_floor > 0 ? t.contrast_p_floor : t.p_floor;
    }
  } else if ((name == kPvaluesMaxstat || name == kPvalues) && f.surrogates) {
    const SurrogateFacts& s = *f.surrogates;
    d.correction = name == kPvalues ? "uncorrected" : "maxstat";
    d.test = fmt::format("each series' value against {} {} surrogates{}", s.n, surrogate_kind(s),
                         name == kPvalues ? "" : ", maximum over its cells");
    d.family = name == kPvalues ? "none: each cell on its own"
                                 : fmt::format("each series' {} (one epoch of one {})", cells_text(f), panel);
    d.p_floor = s.p_floor;
  } else if (name == kErpacPvalues && f.erpac) {
    d.correction = f.erpac->correction == "none" ? "uncorrected" : f.erpac->correction;
    d.test = fmt::format("the circular-linear correlation across the {} at each time point (χ² approximation)",
                         plural(f.input.epochs, "epoch"));
    d.family = d.correction == "uncorrected" ? "none: each cell and time point on its own"
                                             : fmt::format("each channel's band pairs and time points");
  }
  if (d.test.empty()) {
    std::vector<std::string> has;
    if (f.trial && f.surrogates) has.push_back(kTrialPvalues);
    if (f.trial && f.surrogates && f.trial->conditions.size() == 2) has.push_back(kContrastPvalues);
    if (f.surrogates) has.insert(has.end(), {kPvaluesMaxstat, kPvalues});
    if (f.erpac) has.push_back(kErpacPvalues);
    throw InputError(fmt::format("the run has no {}; its p-values are {}", name, list_and(has)));
  }
  return d;
}

}  // namespace pacflow::report
