// The methods paragraph's sentences on the statistics: surrogates, the trial-level test and its
// family, conditions, erpac, and which p-values the results report.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "pipelines/report/methods_sentences.hpp"
#include "pipelines/report/significance.hpp"
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

// "1/201 ≈ 0.005" when the floor is one over the draws, else the number.
std::string floor_text(double p_floor, std::int64_t n) {
  const double draws = static_cast<double>(n) + 1;
  if (std::abs(p_floor * draws - 1) < 1e-9) return fmt::format("1/{} ≈ {}", n + 1, fmt::format("{:.2g}", p_floor));
  return fmt::format("{:.3g}", p_floor);
}

std::string correction_sentence(const TestDescription& d, Citations& cite) {
  if (d.correction == "maxstat")
    return fmt::format(
        "The family-wise error was controlled by max-T over {}: each cell's mean was standardised by the mean and "
        "standard deviation of its own permutation distribution and compared with the permutation distribution of the "
        "family's largest standardised mean ({}).",
        d.family, cite.cite(Work::NicholsHolmes2002));
  if (d.correction == "maxstat_raw")
    return fmt::format(
        "The family-wise error was controlled by the maximum of the raw means over {} ({}), as TensorPAC "
        "does.",
        d.family, cite.cite(Work::NicholsHolmes2002));
  if (d.correction == "fdr")
    return fmt::format("The false discovery rate was controlled by the Benjamini–Hochberg procedure over {} ({}).",
                       d.family, cite.cite(Work::BenjaminiHochberg1995));
  if (d.correction == "bonferroni") return fmt::format("The p-values were Bonferroni-corrected over {}.", d.family);
  return "The p-values were not corrected for multiple comparisons.";
}

}  // namespace

std::string surrogate_sentences(const RunFacts& f, Citations& cite) {
  if (!f.surrogates) return "";
  const SurrogateFacts& s = *f.surrogates;
  const double fs = f.input.sample_rate_hz;
  std::string out;
  if (s.method == "swap_trials") {
    out = fmt::format(
        "Each value was compared with {} surrogates, each pairing every epoch's phase with the amplitude of the same "
        "channel in a randomly permuted epoch, the same permutations for every channel (seed {}; {}).",
        s.n, s.seed, cite.cite(Work::Tort2010));
  } else {
    const std::int64_t last = f.input.samples - s.min_shift_samples;
    out = fmt::format(
        "Each value was compared with {} surrogates in which the {} was shifted circularly by a random lag of {} to "
        "the series' length minus {} ({}–{} samples), the same lags for every series (seed {}; {}).",
        s.n, s.method == "timelag" ? "phase" : "amplitude",
        number(static_cast<double>(s.min_shift_samples) / fs) + " s",
        number(static_cast<double>(s.min_shift_samples) / fs) + " s", s.min_shift_samples, last, s.seed,
        cite.cite(Work::Canolty2006));
  }
  const std::string norm = s.norm == "subtract" ? ", and also normalised as value − mean of the surrogates"
                           : s.norm == "divide" ? ", and also normalised as value / mean of the surrogates"
                           : s.norm == "both"   ? ", and also normalised as (value − mean) / mean of the surrogates"
                                                : "";
  out += fmt::format(
      " The value was z-scored against its surrogates (minus their mean, over their standard deviation){}. Its "
      "p-value was (1 + the number of surrogates at least as large) / (n + 1) ({}), at least {}; a family-wise "
      "p-value per series compared each cell with the surrogates' maximum over the series' {} cells ({}).",
      norm, cite.cite(Work::PhipsonSmyth2010), floor_text(s.p_floor, s.n), f.cells(),
      cite.cite(Work::NicholsHolmes2002));
  const bool shifts = s.method != "swap_trials";
  if (f.trial)
    out += shifts ? " These per-series statistics were used descriptively (time-shift surrogates are slightly liberal "
                    "per series)."
                  : " These per-series statistics were used descriptively.";
  else if (f.input.overlapping_pairs > 0)
    out +=
        " As the epochs overlapped in time, they were not exchangeable, and no test of the mean over epochs by "
        "epoch permutations was made.";
  if (!f.trial && shifts) out += " Time-shift surrogates are slightly liberal per series.";
  return out;
}

// What the trial-level test compared the mean with: drawn permutations, or every ordering.
std::string permutations_text(const TrialFacts& t, bool conditions) {
  const std::string within = conditions ? " and condition" : "";
  if (t.exhaustive)
    return fmt::format(
        "all {} orderings of the epochs within their blocks of {} consecutive epochs{} (an exact "
        "test), each pairing every epoch's phase with the amplitude of the epoch the ordering puts in "
        "its place",
        t.permutations + 1, t.block, within);
  return fmt::format(
      "{} random permutations of the epochs within their blocks of {} consecutive epochs{}, each "
      "pairing every epoch's phase with the amplitude of the epoch the permutation puts in its place; "
      "the test is exact when the epochs are exchangeable",
      t.permutations, t.block, within);
}

// The contrast of two conditions, as result.json documents it.
std::string contrast_text(const TrialFacts& t, Citations& cite) {
  const std::string& a = t.conditions[0];
  const std::string& b = t.conditions[1];
  const std::string labels = fmt::format("{} permutations of the condition labels", t.permutations);
  if (t.contrast == "welch_z")
    return fmt::format(
        "; their difference ({} minus {}) was tested by Welch's t of the epochs' z-scores against their own "
        "surrogates (so that a difference in power alone makes no contrast), two-sided, against {}, a studentised "
        "permutation test ({}), with the same correction.",
        a, b, labels, cite.cite({Work::Janssen1997, Work::ChungRomano2013}));
  return fmt::format(
      "; their difference in mean coupling ({} minus {}) was tested, two-sided, against {}, with the "
      "same correction.",
      a, b, labels);
}

std::string trial_sentences(const RunFacts& f, Citations& cite) {
  if (!f.trial || !f.surrogates) return "";
  const TrialFacts& t = *f.trial;
  const TestDescription d = describe_test(f, kTrialPvalues);
  const bool pairs = f.measure && f.measure->pairs != "diag";
  const std::string epochs = t.left_out_epochs > 0 ? fmt::format(
                                                         "{} that do not overlap in time (the {} others left "
                                                         "out)",
                                                         plural(t.epochs, "epoch"), t.left_out_epochs)
                                                   : plural(t.epochs, "epoch");
  std::string out = fmt::format(
      "Inference was made on each {}'s mean over its {}, tested against {}. {} The smallest "
      "attainable p-value was {}{}.",
      pairs ? "channel pair" : "channel", epochs, permutations_text(t, t.conditions.size() > 1),
      correction_sentence(d, cite), floor_text(t.p_floor, t.permutations),
      t.p_floor >= f.alpha ? ", not below α: no cell could be significant" : "");
  if (t.conditions.size() > 1) {
    std::vector<std::string> each;
    for (const auto& c : f.input.conditions) each.push_back(fmt::format("{}, {}", c.name, plural(c.epochs, "epoch")));
    out += fmt::format(" The epochs formed {} conditions ({}), each tested on its own", t.conditions.size(),
                       each.empty() ? list_and(t.conditions) : fmt::format("{}", fmt::join(each, "; ")));
    out += t.conditions.size() == 2 ? contrast_text(t, cite) : ".";
  }
  return out;
}

std::string erpac_sentence(const RunFacts& f, Citations& cite) {
  if (!f.erpac) return "";
  const std::string correction =
      f.erpac->correction == "fdr"
          ? fmt::format(
                ", corrected by the Benjamini–Hochberg procedure over each channel's band pairs and time points "
                "({})",
                cite.cite(Work::BenjaminiHochberg1995))
      : f.erpac->correction == "bonferroni" ? ", Bonferroni-corrected over each channel's band pairs and time points"
                                            : ", uncorrected";
  return fmt::format(
      "Event-related PAC was computed per channel as the circular-linear correlation across the {} "
      "between phase and amplitude at every time point ({}), with p-values from its χ² approximation{}.",
      plural(f.input.epochs, "epoch"), cite.cite(Work::Voytek2013), correction);
}

std::string reporting_sentence(const RunFacts& f) {
  if (!f.surrogates && !f.erpac) return "";
  const TestDescription d = describe_test(f);
  const std::string which = d.array == kTrialPvalues     ? "the trial-level p-value"
                            : d.array == kPvaluesMaxstat ? "the family-wise p-value of its series"
                                                           : "the corrected p-value";
  return fmt::format("A cell was called significant where {} ({}) was below α = {}.", which, d.array, number(f.alpha));
}

}  // namespace pacflow::report
