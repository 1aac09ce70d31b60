#include "stages/surrogates/surrogates_stage.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <oneapi/tbb/parallel_for.h>

#include "engine/api/errors.hpp"
#include "engine/api/estimates.hpp"
#include "stages/bandpass/bandpass_facts.hpp"
#include "stages/common/cell_axes.hpp"
#include "stages/common/output_names.hpp"
#include "stages/common/tensor_names.hpp"
#include "stages/common/whole_input.hpp"
#include "stages/kernels/pac/shifted_mi.hpp"
#include "stages/kernels/surrogates/surrogate_stats_cpu.hpp"
#include "stages/modulation_index/mi_facts.hpp"
#include "stages/surrogates/surrogates_facts.hpp"

namespace pacflow::stages {

namespace {

struct Output {
  const char* name;
  const char* doc;
};
constexpr Output kStatistics[5] = {
    {tensors::kPacZ, "(PAC - mean) / std of the surrogates"},
    {tensors::kSurrogateMean, "mean of the surrogate PAC"},
    {tensors::kSurrogateStd, "population std of the surrogate PAC"},
    {tensors::kPvalues, "(1 + #{k: PAC_k >= PAC}) / (n + 1)"},
    {tensors::kPvaluesMaxstat, "family-wise: (1 + #{k: max over cells of PAC_k >= PAC}) / (n + 1)"},
};

// What one group of the trial-level test is, from the dimensions after epochs: "channel", "pair".
std::string group_name(const std::vector<std::string>& leading_names) {
  if (leading_names.size() < 2) return "group";
  const auto singular = [](std::string name) {
    if (name.ends_with('s')) name.pop_back();
    return name;
  };
  return leading_names.size() > 2 ? singular(leading_names[1]) + " and " + singular(leading_names[2])
                                  : singular(leading_names[1]);
}

const char* norm_doc(surrogates::Norm norm) {
  switch (norm) {
    case surrogates::Norm::Subtract: return "PAC - mean of the surrogates";
    case surrogates::Norm::Divide: return "PAC / mean of the surrogates";
    case surrogates::Norm::Both: return "(PAC - mean) / mean of the surrogates";
    case surrogates::Norm::Z: break;
  }
  return "";
}

}  // namespace

void SurrogatesStage::declare(ParamBinder<SurrogatesStage>& p) {
  using surrogates::Norm;
  using surrogates::TrialTest;
  p.add([](SurrogatesStage& s) -> std::int64_t& { return s.plan_.n_perm; }, "n", 200,
        "number of surrogates (ignored when shifts is given)")
      .unit("permutations");
  p.add(&SurrogatesStage::seed_, "seed", 42, "key of the counter-based shift and permutation generators").at_least(0);
  p.optional(&SurrogatesStage::min_shift_, "min_shift",
             "smallest shift; default one period of the lowest phase-band centre, at most T/4")
      .unit("s, ms or smp");
  p.optional(&SurrogatesStage::shifts_param_, "shifts",
             "explicit shifts [s_1, ...] replacing the generator (warned about within min_shift of 0 or T)")
      .unit("samples");
  p.choice([](SurrogatesStage& s) -> SurrogateKind& { return s.plan_.kind; }, "method",
           {{"timeshift", Kind::Timeshift}, {"timelag", Kind::Timelag}, {"swap_trials", Kind::SwapTrials}}, "timeshift",
           "timeshift (shift the amplitude by s_k), timelag (shift the phase by s_k) or swap_trials (pair each epoch's "
           "phase with the amplitude of epoch perm_k(e); needs the whole input in one batch)");
  p.choice([](SurrogatesStage& s) -> surrogates::Norm& { return s.plan_.norm; }, "norm",
           {{"z", Norm::Z}, {"subtract", Norm::Subtract}, {"divide", Norm::Divide}, {"both", Norm::Both}}, "z",
           "correction of the PAC by its surrogates: z (pac_z only), subtract, divide or both (also writes pac_norm)");
  p.choice(&SurrogatesStage::given_trials_, "trials",
           {{"auto", std::nullopt},
            {"maxstat", TrialTest::Maxstat},
            {"maxstat_raw", TrialTest::MaxstatRaw},
            {"fdr", TrialTest::Fdr},
            {"bonferroni", TrialTest::Bonferroni},
            {"uncorrected", TrialTest::Uncorrected},
            {"none", TrialTest::None}},
           "auto",
           "trial-level test of each channel's mean over epochs against epoch permutations (trial_pac, trial_z, "
           "trial_pvalues): maxstat (max-T over the family's cells), maxstat_raw (TensorPAC's max of raw means), fdr or "
           "bonferroni across the family's cells, uncorrected, or none; auto: maxstat when the input has four epochs or "
           "more that do not overlap in time, else none");
  p.choice([](SurrogatesStage& s) -> surrogates::TrialFamily& { return s.plan_.trials.family; }, "trial_family",
           {{"channels", surrogates::TrialFamily::Channels}, {"cells", surrogates::TrialFamily::Cells}}, "channels",
           "what the trial-level correction covers: channels (every channel's cells together: is there coupling "
           "anywhere) or cells (each channel's cells apart: is there coupling in this channel)");
  p.choice(&SurrogatesStage::refuse_gain_confound_, "gain_confound", {{"refuse", true}, {"warn", false}}, "refuse",
           "swap_trials with a measure that grows with the amplitude (mvl): refuse, or run with a warning (TensorPAC "
           "runs it); each epoch is then compared with other epochs' amplitudes, so its z and p follow its power");
  p.add(&SurrogatesStage::trial_block_, "trial_block", 8,
        "the trial-level test pairs each epoch's phase with the amplitude of an epoch of its block of this many "
        "consecutive epochs (every batch holds whole blocks)")
      .unit("epochs")
      .range(2, 4096);
  p.add(&SurrogatesStage::trial_memory_mib_, "trial_memory", 256,
        "what the trial-level test holds at most: of its permutations' sums (beyond it, when each block's pairings "
        "take less, it keeps those and sums them again at the finish a chunk at a time; result.json's trial_state "
        "says which), and per thread of a channel's block of rows evaluated together (beyond it, a row at a time); "
        "the same results either way, in more time")
      .unit("MiB")
      .range(0, 1 << 24);
  p.add(&SurrogatesStage::row_memory_mib_, "row_memory", 16,
        "what a thread holds at most of the measures of the rows it evaluates (n + 1 alignments x cells each, in "
        "double): beyond it a row's alignments are evaluated and summarised a chunk at a time (each chunk bins the "
        "phases again); the same results either way")
      .unit("MiB")
      .range(0, 1 << 24);
  p.parsed_optional(&SurrogatesStage::outputs_, "outputs", outputs_parser({"values"}),
                    "extra results: values (surrogate_values [n][n_pha][n_amp]: every surrogate's measure, as "
                    "TensorPAC's Pac.surrogates; computed on the CPU)");
}

ElementInfo SurrogatesStage::info() {
  return element_info<SurrogatesStage>(
      "surrogates", "surrogate distribution of mi's measure: mean, std, z-score, p-values, normalisation (spec §6)");
}

void SurrogatesStage::configured() {
  plan_.keep_values = asks_for(outputs_, "values");
  plan_.values_limit_bytes = static_cast<double>(row_memory_mib_) * (1 << 20);
  if (plan_.kind == Kind::SwapTrials && (shifts_param_ || min_shift_))
    throw ParamError(shifts_param_ ? "shifts" : "min_shift", "swap_trials permutes epochs and shifts nothing");
  if (shifts_param_) {
    for (double s : *shifts_param_) {
      if (s != std::floor(s)) throw ParamError("shifts", fmt::format("shift {} is not a whole number of samples", s));
      given_shifts_.push_back(static_cast<std::int64_t>(s));
    }
    if (given_shifts_.empty()) throw ParamError("shifts", "the list is empty");
    plan_.n_perm = static_cast<std::int64_t>(given_shifts_.size());
  } else if (plan_.n_perm < 1 || plan_.n_perm > 1'000'000) {  // not a declared range: ignored when shifts is given
    throw ParamError("n", fmt::format("must be from 1 to 1000000, got {}", plan_.n_perm));
  }
}

void SurrogatesStage::plan(PlanContext& ctx) {
  const TensorDecl& phase = ctx.require(tensors::kPhase, "surrogates");
  const TensorDecl& amplitude = ctx.require(tensors::kAmplitude, "surrogates");
  const mi::MethodSettings* measure = ctx.find(kMiSettings);
  if (!ctx.provides(tensors::kPac) || !measure)
    throw InputError("surrogates must come after the mi stage (it computes the same measure, bins and pairs)");
  plan_.n_pha = phase.per_series.at(0);
  plan_.length = phase.per_series.at(1);
  plan_.n_amp = amplitude.per_series.at(0);
  plan_.settings = *measure;
  const mi::MethodSettings& settings = plan_.settings;
  bins_ = settings.bins;
  plan_.envelope = mi::needs_envelope_phase(settings.kind);
  if (plan_.envelope) ctx.require(tensors::kEnvelopePhase, "surrogates");
  method_ = mi::make_method(settings, plan_.length);
  plan_.pairs = mi::PairPlan(ctx.require(kMiPairs, "surrogates"), ctx.stream());
  if (settings.kind == mi::MethodKind::Ndpac)
    ctx.warn("ndpac is already thresholded at its own significance level (ndpac_p); TensorPAC runs no surrogates "
             "with it");
  if (plan_.kind == Kind::SwapTrials)
    plan_swaps(ctx);
  else
    plan_shifts(ctx);
  const double workspace = static_cast<double>(plan_.n_perm) * static_cast<double>(plan_.n_pha * plan_.n_amp) * 8.0;
  if (workspace > 0x1p30)
    throw ParamError(given_shifts_.empty() ? "n" : "shifts",
                     fmt::format("{} permutations x {} cells need {:.1f} GiB per series; use fewer", plan_.n_perm,
                                 plan_.n_pha * plan_.n_amp, workspace / 0x1p30));
  if (plan_.n_perm < 2)
    ctx.warn("surrogates with a single permutation have no spread: every z-score is NaN and every p-value 1/2 or 1");
  const RowLayout rows = plan_.pairs.rows();
  plan_.outputs.clear();
  for (const auto& out : kStatistics) {
    ctx.declare(over_cells({out.name, {plan_.n_pha, plan_.n_amp}, DType::Float32, true, out.doc, rows}));
    plan_.outputs.emplace_back(out.name);
  }
  if (plan_.norm != surrogates::Norm::Z) {
    ctx.declare(
        over_cells({tensors::kPacNorm, {plan_.n_pha, plan_.n_amp}, DType::Float32, true, norm_doc(plan_.norm), rows}));
    plan_.outputs.emplace_back(tensors::kPacNorm);
  }
  if (plan_.keep_values) {
    TensorDecl values{kSurrogateValues, {plan_.n_perm, plan_.n_pha, plan_.n_amp}, DType::Float32, true,
                      "the measure of each surrogate (permutation k), as the statistics saw it", rows};
    values.axes = {"permutations", "phase_bands", "amplitude_bands"};
    ctx.declare(std::move(values));
  }
  ctx.resolved()["n_perm"] = plan_.n_perm;
  ctx.resolved()["p_floor"] = 1 / (static_cast<double>(plan_.n_perm) + 1);  // (1 + count) / (n + 1), spec §6
  ctx.resolved()["measure"] = settings.to_json();
  plan_trials(ctx);
}

// The trial-level test: each measure row r = e · groups + g belongs to epoch e and group g (a
// channel, pair or segment); the test is on each group's mean over the epochs.
void SurrogatesStage::plan_trials(PlanContext& ctx) {
  const StreamInfo& stream = ctx.stream();
  const RowLayout rows = plan_.pairs.rows();
  const Shape leading = rows.leading.empty() ? stream.leading_dims : rows.leading;
  const std::vector<std::string> names = rows.leading.empty() ? stream.leading_names : rows.leading_names;
  const bool epochs = !names.empty() && names[0] == "epochs";
  const std::int64_t count = epochs ? leading[0] : 1;
  // Four epochs have 24 orderings, enough for a p-value below 0.05; fewer cannot reach it.
  constexpr std::int64_t kAutoEpochs = 4;
  // Epochs that are not exchangeable (overlapping windows of one recording) have no valid
  // permutation null: 50 % overlap gave 13-15 % false positives at 5 %, 75 % gave 41-43 % (issue 36).
  // When the source names the most epochs that do not overlap, the test is made on them alone: each
  // pairing it permutes is then of disjoint samples.
  const std::string& not_exchangeable = stream.epochs_not_exchangeable;
  const bool subset = !not_exchangeable.empty() && epochs && !stream.exchangeable_epochs.empty();
  const std::int64_t used = subset ? static_cast<std::int64_t>(stream.exchangeable_epochs.size()) : count;
  if (given_trials_)
    plan_.trials.test = *given_trials_;
  else
    plan_.trials.test = epochs && used >= kAutoEpochs && (not_exchangeable.empty() || subset)
                       ? surrogates::TrialTest::Maxstat
                       : surrogates::TrialTest::None;
  ctx.resolved()["trials"] = surrogates::trial_test_name(plan_.trials.test);
  if (!not_exchangeable.empty() && plan_.trials.test == surrogates::TrialTest::None && !given_trials_ && epochs &&
      count >= kAutoEpochs)
    ctx.warn(fmt::format("trials: no trial-level test: {}; epoch permutations would not be a valid null{}",
                         not_exchangeable,
                         subset ? fmt::format(", and only {} epoch{} do not overlap (four are needed)", used,
                                              used == 1 ? "" : "s")
                                : " (use epochs that do not overlap, e.g. step= at least epoch=, for one)"));
  if (plan_.trials.test == surrogates::TrialTest::None) return;
  if (!not_exchangeable.empty() && !subset)
    throw ParamError("trials", fmt::format("a test of the mean over epochs permutes the epochs, but {}: the permutations "
                                           "are no valid null then (false positives far above the level); use epochs "
                                           "that do not overlap (step= at least epoch=) or trials=none",
                                           not_exchangeable));
  if (subset && used < 2)
    throw ParamError("trials", fmt::format("{}, and only {} epoch does not overlap another: a test of the mean over "
                                           "epochs needs two or more; use epochs that do not overlap or trials=none",
                                           not_exchangeable, used));
  plan_.trials.block = trial_block_;
  plan_.trials.left_out_epochs.clear();
  if (subset) {
    for (std::int64_t e = 0, k = 0; e < count; ++e)
      if (k < used && stream.exchangeable_epochs[static_cast<std::size_t>(k)] == e)
        ++k;
      else
        plan_.trials.left_out_epochs.push_back(e);
    // Blocks of as many kept epochs as trial_block says.
    plan_.trials.block = trial_block_ * ((count + used - 1) / used);
    ctx.warn(fmt::format("trials: the trial-level test uses the {} of {} epochs that do not overlap in time (the others "
                         "share samples with them: {}); permuting overlapping epochs would be no valid null",
                         used, count, not_exchangeable));
    ctx.resolved()["trial_left_out_epochs"] = plan_.trials.left_out_epochs;
  }
  if (!epochs || count < 2)
    throw ParamError("trials", fmt::format("a test of the mean over epochs needs two epochs or more, but the input is "
                                           "laid out [{}] of {} series; use trials=none",
                                           fmt::join(names, "]["), stream.series_count()));
  plan_.trials.rows = rows;
  plan_.trials.epochs = count;
  plan_.trials.groups = element_count(leading) / count;
  plan_.trials.n_perm = plan_.n_perm;
  plan_.trials.cells = {plan_.n_pha, plan_.n_amp};
  plan_.trials.excluded_series = stream.excluded_series;
  plan_.trials.conditions = std::max<std::int64_t>(1, static_cast<std::int64_t>(stream.condition_names.size()));
  plan_.trials.epoch_conditions = stream.epoch_conditions;
  plan_.trials.seed = seed_;
  if (plan_.trials.conditions > 1 && static_cast<std::int64_t>(stream.epoch_conditions.size()) != count)
    throw std::logic_error("the source names a condition for each epoch");
  plan_.trials.block = std::min(plan_.trials.block, count);  // trial_block_, or more with left-out epochs
  plan_.trials.state_limit_bytes = static_cast<double>(trial_memory_mib_) * (1 << 20);
  // Few orderings (four epochs: 24): every one of them, an exact test, instead of n random draws
  // that repeat them (and so could not reach 0.05: 0.4 % false positives with four epochs).
  const double orderings = trial_orderings(static_cast<double>(plan_.n_perm) + 2);
  plan_.trials.enumerate = plan_.trials.conditions == 1 && plan_.trials.excluded_series.empty() &&
                      orderings <= static_cast<double>(plan_.n_perm) + 1;
  if (plan_.trials.enumerate) plan_.trials.n_perm = static_cast<std::int64_t>(orderings) - 1;
  plan_.series_per_epoch = stream.series_count() / count;
  ctx.align_batches(plan_.trials.block * plan_.series_per_epoch);
  state_resolution(ctx);
  TensorDecl pairings{surrogates::kTrialPairingsTensor, {plan_.trials.block, plan_.n_pha, plan_.n_amp}, DType::Float64,
                      false,
                      "the measure of the row's phase with its group's amplitude in each epoch of its block, for the "
                      "trial-level test",
                      rows};
  pairings.kept = true;
  ctx.declare(std::move(pairings));
  const RowLayout per_group{1, 1, Shape(leading.begin() + 1, leading.end()),
                            std::vector<std::string>(names.begin() + 1, names.end())};
  RowLayout per_condition = per_group;  // with several conditions, a leading [conditions] dimension
  if (plan_.trials.conditions > 1) {
    per_condition.leading.insert(per_condition.leading.begin(), plan_.trials.conditions);
    per_condition.leading_names.insert(per_condition.leading_names.begin(), "conditions");
  }
  using surrogates::TrialTest;
  const std::string over = plan_.trials.family == surrogates::TrialFamily::Channels
                               ? fmt::format("over every {}'s cells together", group_name(names))
                               : fmt::format("over each {}'s cells", group_name(names));
  const std::string correction =
      plan_.trials.test == TrialTest::Maxstat      ? "max-T " + over + " (each cell standardised by its permutations)"
      : plan_.trials.test == TrialTest::MaxstatRaw ? "max statistic of the raw means " + over + " (TensorPAC)"
      : plan_.trials.test == TrialTest::Fdr        ? "Benjamini-Hochberg FDR " + over
      : plan_.trials.test == TrialTest::Bonferroni ? "Bonferroni " + over
                                              : "uncorrected";
  const struct {
    const char* name;
    std::string doc;
  } outputs[] = {
      {surrogates::kTrialPac, "mean over epochs of the measure"},
      {surrogates::kTrialZ, "(mean - mean of the surrogate means) / std of the surrogate means"},
      {surrogates::kTrialPvalues, "(1 + #{k: mean_k >= mean}) / (n + 1) of the mean over epochs, " + correction},
      {surrogates::kTrialRankZ, "-Phi^-1 of the mean's mid-rank among its permutations, (#{k: mean_k > mean} + "
                                "(#{k: mean_k = mean} + 1) / 2) / (n + 1), uncorrected: symmetric around 0 without "
                                "coupling (a group test's subject value)"},
  };
  const auto declare = [&](const char* name, const std::string& doc, const RowLayout& rows_of) {
    TensorDecl decl = over_cells({name, {plan_.n_pha, plan_.n_amp}, DType::Float32, true, doc, rows_of});
    decl.summary = true;
    ctx.declare(std::move(decl));
  };
  for (const auto& out : outputs) declare(out.name, out.doc, per_condition);
  if (plan_.trials.conditions == 2) {
    const std::string& a = stream.condition_names[0];
    const std::string& b = stream.condition_names[1];
    declare(surrogates::kContrastPac,
            fmt::format("mean over the {} epochs of their pac_z minus that over the {} epochs (each epoch's z "
                        "against its own surrogates: a difference of power alone makes none)",
                        a, b),
            per_group);
    declare(surrogates::kContrastZ,
            "(t - mean) / std of the t under permuted condition labels, t: Welch's t of the epochs' pac_z", per_group);
    declare(surrogates::kContrastPvalues,
            "(1 + #{k: |t_k| >= |t|}) / (n + 1) under permuted condition labels, t: Welch's t of the epochs' pac_z, " +
                correction,
            per_group);
  } else if (plan_.trials.conditions > 2) {
    ctx.warn(fmt::format("{} conditions: each is tested on its own (trial_pvalues [conditions]…); the contrast of "
                         "conditions is made for two only",
                         plan_.trials.conditions));
  }
  ctx.resolved()["trial_family"] = surrogates::trial_family_name(plan_.trials.family);
  ctx.resolved()["trial_correction"] = correction;
  ctx.resolved()["trial_epochs"] = count - static_cast<std::int64_t>(plan_.trials.left_out_epochs.size());
  ctx.resolved()["trial_block"] = plan_.trials.block;
  ctx.resolved()["trial_null"] =
      plan_.trials.enumerate
          ? fmt::format("every ordering of the epochs within their blocks of {} ({} besides the observed one): "
                        "epoch e's phase with the amplitude of epoch perm(e) of its block",
                        plan_.trials.block, plan_.trials.n_perm)
          : fmt::format("epoch permutations: epoch e's phase with the amplitude of epoch perm_k(e) of its block of {} "
                        "(and condition)",
                        plan_.trials.block);
  ctx.resolved()["trial_permutations"] = plan_.trials.n_perm;
  ctx.resolved()["trial_state"] =
      surrogates::keeps_pairings(plan_.trials)
          ? fmt::format("each block's pairings ({}; the permutations' sums would take {}), summed at the finish a "
                        "chunk of permutations at a time",
                        bytes_text(surrogates::trial_state_bytes(plan_.trials)),
                        bytes_text(surrogates::trial_sums_bytes(plan_.trials)))
          : fmt::format("the permutations' sums ({})", bytes_text(surrogates::trial_state_bytes(plan_.trials)));
  if (plan_.trials.conditions > 1) ctx.resolved()["trial_conditions"] = stream.condition_names;
  if (plan_.trials.conditions == 2) ctx.resolved()["contrast_statistic"] = "welch_t_of_pac_z";
  ctx.publish(kTrialTest, surrogates::trial_test_name(plan_.trials.test));
  ctx.publish(kTrialEpochs, count - static_cast<std::int64_t>(plan_.trials.left_out_epochs.size()));
  ctx.publish(kTrialPermutations, plan_.trials.n_perm);
  ctx.publish(kTrialFamily, std::string(surrogates::trial_family_name(plan_.trials.family)));
}

// The smallest p-value each test can give, stated in result.json (p_floor, trial_p_floor), and a
// warning when it cannot reach 0.05: the permutations reach at most the product over blocks (and
// conditions) of m! orderings, and a p-value (1 + count) / (n + 1) counts every drawn copy of the
// observed ordering, so it stays above about 1 / orderings; Bonferroni and FDR multiply the smallest
// by the family's size (issue 36: Bonferroni over 25 cells with n = 200 can never reject).
// The orderings of the epochs within their blocks and conditions (a product of factorials), counted
// up to `cap`.
double SurrogatesStage::trial_orderings(double cap) const {
  const auto& labels = plan_.trials.epoch_conditions;  // empty: every epoch in condition 0
  double orderings = 1;
  for (std::int64_t first = 0; first < plan_.trials.epochs && orderings < cap; first += plan_.trials.block) {
    std::vector<std::int64_t> in_condition(static_cast<std::size_t>(plan_.trials.conditions), 0);
    for (std::int64_t e = first; e < std::min(first + plan_.trials.block, plan_.trials.epochs); ++e)
      if (!std::binary_search(plan_.trials.left_out_epochs.begin(), plan_.trials.left_out_epochs.end(), e))
        ++in_condition[static_cast<std::size_t>(labels.empty() ? 0 : labels[static_cast<std::size_t>(e)])];
    for (std::int64_t m : in_condition)
      for (std::int64_t i = 2; i <= m; ++i) orderings *= static_cast<double>(i);
  }
  return orderings;
}

void SurrogatesStage::state_resolution(PlanContext& ctx) const {
  constexpr double kAlpha = 0.05;
  const double draws = static_cast<double>(plan_.trials.n_perm) + 1;
  const double orderings = trial_orderings(draws);
  using surrogates::TrialTest;
  const double floor = std::max(1 / draws, 1 / orderings);
  const double groups =
      plan_.trials.family == surrogates::TrialFamily::Channels ? static_cast<double>(plan_.trials.groups) : 1.0;
  const auto cells = static_cast<double>(plan_.n_pha * plan_.n_amp) * groups;
  const bool times_family = plan_.trials.test == TrialTest::Bonferroni || plan_.trials.test == TrialTest::Fdr;
  const double corrected = times_family ? std::min(1.0, floor * cells) : floor;
  ctx.resolved()["trial_p_floor"] = corrected;
  if (plan_.trials.conditions == 2) {
    // The contrast permutes the condition labels of the epochs taking part: C(E, a) labellings,
    // half of them mirror images when the conditions are the same size (|t| is the same).
    double sizes[2] = {0, 0};
    for (std::int64_t e = 0; e < plan_.trials.epochs; ++e)
      if (!std::binary_search(plan_.trials.left_out_epochs.begin(), plan_.trials.left_out_epochs.end(), e))
        ++sizes[plan_.trials.epoch_conditions[static_cast<std::size_t>(e)] == 0 ? 0 : 1];
    const double labellings =
        std::exp(std::lgamma(sizes[0] + sizes[1] + 1) - std::lgamma(sizes[0] + 1) - std::lgamma(sizes[1] + 1));
    const double contrast_floor = std::max(1 / draws, (sizes[0] == sizes[1] ? 2 : 1) / labellings);
    const double contrast_corrected = times_family ? std::min(1.0, contrast_floor * cells) : contrast_floor;
    ctx.resolved()["contrast_p_floor"] = contrast_corrected;
    if (contrast_corrected > kAlpha)
      ctx.warn(fmt::format("trials: the contrast of the two conditions ({:g} and {:g} epochs) can give no p-value below "
                           "{:.3g}, above 0.05: no cell can differ significantly; use more epochs{}",
                           sizes[0], sizes[1], contrast_corrected, times_family ? " or trials=maxstat" : ""));
  }
  constexpr double kEnough = 20;
  if (orderings < kEnough) {
    ctx.warn(fmt::format("trials: the epochs have only {:g} orderings within their blocks{}, so no trial-level p-value "
                         "can fall below 1/{:g}; use more epochs, a larger trial_block, or trials=none",
                         orderings, plan_.trials.conditions > 1 ? " and conditions" : "", orderings));
  } else if (corrected > kAlpha) {
    const auto enough_n = static_cast<std::int64_t>(std::ceil((times_family ? cells : 1.0) / kAlpha)) - 1;
    ctx.warn(fmt::format("trials={}: the smallest p-value it can give is {:.3g}{}, above 0.05: no cell can be "
                         "significant at 0.05; {}",
                         surrogates::trial_test_name(plan_.trials.test), corrected,
                         times_family ? fmt::format(" (1/{:g} times the family's {:g} cells)", 1 / floor, cells) : "",
                         plan_.trials.enumerate || 1 / floor < draws ? "use more epochs or a larger trial_block"
                         : times_family    ? fmt::format("use n={} or more, or trials=maxstat (max-T: its floor is "
                                                         "1/(n + 1) whatever the cells)",
                                                         enough_n)
                                           : fmt::format("use n={} or more", enough_n)));
  }
}

std::unique_ptr<RunSummary> SurrogatesStage::make_summary() const {
  if (plan_.trials.test == surrogates::TrialTest::None) return nullptr;
  return std::make_unique<surrogates::TrialStatistics>(plan_.trials);
}

// Each measure row is added into the observed sums and every permutation's (an add per cell;
// each permutation's row of sums read and written once per block); the finish divides the sums,
// then reads them five times (two for the moments, the maxima, the counts), and with two
// conditions sums each permutation's labelled z over the epochs and tests those too. With the
// pairings kept instead (beyond the state limit), a row is only copied, and the finish makes the
// same sums three times over (the moments' two passes, then the maxima and counts).
SummaryWork SurrogatesStage::summary_work() const {
  const surrogates::TrialLayout& t = plan_.trials;
  if (t.test == surrogates::TrialTest::None) return {};
  const auto values = static_cast<double>((t.n_perm + 1) * plan_.n_pha * plan_.n_amp);  // per group
  const double rows_per_series =
      static_cast<double>(t.rows.rows_per_group) / static_cast<double>(std::max<std::int64_t>(1, t.rows.group));
  const double summed = static_cast<double>(t.conditions * t.groups) * values;
  SummaryWork work;
  if (surrogates::keeps_pairings(t)) {
    const auto row = static_cast<double>(t.block * plan_.n_pha * plan_.n_amp);
    work.bytes_per_series = rows_per_series * row * 2 * sizeof(double);
    const double additions = static_cast<double>(t.epochs) * static_cast<double>(t.groups) * values;
    work.finish_flops = 3 * additions + 12 * summed;
    work.finish_bytes = 3 * surrogates::trial_state_bytes(t) + 7 * summed * sizeof(double);
  } else {
    work.flops_per_series = rows_per_series * values;
    work.bytes_per_series = rows_per_series * values * 2 * sizeof(double) / static_cast<double>(t.block);
    work.finish_flops = 12 * summed;
    work.finish_bytes = 7 * summed * sizeof(double);
  }
  work.state_bytes = surrogates::trial_state_bytes(t);
  if (t.conditions == 2) {
    const auto groups = static_cast<double>(t.groups);
    work.finish_flops += groups * values * (4 * static_cast<double>(t.epochs) + 12);
    work.finish_bytes += groups * values * 6 * sizeof(double);
  }
  return work;
}

void SurrogatesStage::plan_shifts(PlanContext& ctx) {
  if (const std::string& why = ctx.stream().shifts_keep_coupling; !why.empty())
    ctx.warn(fmt::format("time-shift surrogates cannot reject the null here (TensorPAC issue 20): {}", why));
  const std::int64_t min_shift = min_shift_samples(ctx);
  if (!given_shifts_.empty()) {
    for (auto s : given_shifts_)
      if (s <= 0 || s >= plan_.length)
        throw ParamError("shifts", fmt::format("shift {} is outside [1, {}] (series of {} samples)", s,
                                               plan_.length - 1, plan_.length));
    shifts_ = given_shifts_;
    warn_of_small_shifts(ctx, min_shift);
  } else {
    shifts_.clear();
    for (std::int64_t k = 0; k < plan_.n_perm; ++k)
      shifts_.push_back(surrogates::timeshift(seed_, static_cast<std::uint64_t>(k), min_shift, plan_.length));
  }
  ctx.resolved()["min_shift_samples"] = min_shift;
  ctx.resolved()["shifted"] = plan_.kind == Kind::Timelag ? "phase (timelag)" : "amplitude (timeshift)";
  ctx.resolved()["shifts"] = shifts_;
  ctx.resolved()["shift_generator"] = "splitmix64 counter-based, keyed by (seed, k)";
  ctx.publish(kSurrogateShifts, shifts_);
  // Row 0 the observed alignment, row k + 1 surrogate k. Shifting the phase by s (timelag) pairs
  // phi(t + s) with A(t), which is A shifted by T - s against phi.
  plan_.alignment_shifts.assign(shifts_.size() + 1, 0);
  for (std::size_t k = 0; k < shifts_.size(); ++k)
    plan_.alignment_shifts[k + 1] =
        plan_.kind == Kind::Timelag ? (plan_.length - shifts_[k]) % plan_.length : shifts_[k];
}

// The smallest shift, in samples: min_shift= if given, else one period of the lowest phase-band
// centre, capped at T/4 (spec §6).
std::int64_t SurrogatesStage::min_shift_samples(const PlanContext& ctx) const {
  const double fs = ctx.stream().sample_rate;
  if (min_shift_) {
    // Checked in double before converting: absurd values must not overflow.
    const double exact = min_shift_->samples_exact(fs);
    if (!(exact >= 1) || 2 * exact > static_cast<double>(plan_.length))
      throw ParamError("min_shift", fmt::format("{:g} samples is outside [1, T/2 = {}] for series of {} samples", exact,
                                                plan_.length / 2, plan_.length));
    return min_shift_->samples(fs);
  }
  double lowest = std::numeric_limits<double>::infinity();
  if (const std::vector<double>* centres = ctx.find(kPhaseCentres))
    for (const double centre : *centres) lowest = std::min(lowest, centre);
  const std::int64_t period = std::isfinite(lowest) ? static_cast<std::int64_t>(std::ceil(fs / lowest)) : 1;
  return std::max<std::int64_t>(1, std::min(period, plan_.length / 4));
}

// A shift s is circular: it moves the amplitude min(s, T - s) samples away from the observed
// alignment. Closer than min_shift, the surrogate keeps much of the coupling it should destroy and
// pulls z-scores toward 0; generated shifts never are, explicit ones are said to be.
void SurrogatesStage::warn_of_small_shifts(PlanContext& ctx, std::int64_t min_shift) const {
  std::vector<std::int64_t> close;
  for (auto s : shifts_)
    if (std::min(s, plan_.length - s) < min_shift) close.push_back(s);
  if (close.empty()) return;
  constexpr std::size_t kListed = 8;
  std::string listed = fmt::format("{}", fmt::join(close.begin(), close.begin() + std::min(close.size(), kListed), ", "));
  if (close.size() > kListed) listed += fmt::format(", … ({} in all)", close.size());
  ctx.warn(fmt::format("{} {} within min_shift = {} samples ({}) of the observed alignment (a shift s moves "
                       "the {} by min(s, T - s), T = {}): such surrogates keep part of the coupling and pull z "
                       "toward 0; use shifts in [{}, {}]",
                       close.size() == 1 ? "shift" : "shifts", close.size() == 1 ? listed + " is" : listed + " are",
                       min_shift, min_shift_ ? "given" : "one period of the lowest phase band",
                       plan_.kind == Kind::Timelag ? "phase" : "amplitude", plan_.length, min_shift,
                       plan_.length - min_shift));
}

void SurrogatesStage::plan_swaps(PlanContext& ctx) {
  const StreamInfo& stream = ctx.stream();
  epochs_ = epochs_of(stream, "swap_trials needs an input laid out [epochs]…[time]");
  if (epochs_ < 2)
    throw ParamError("method", fmt::format("swap_trials pairs each epoch's phase with the amplitude of another epoch, "
                                           "but the input has {} epoch; use timeshift or timelag", epochs_));
  if (!stream.excluded_series.empty())
    throw ParamError("method", fmt::format("swap_trials pairs each epoch's phase with the amplitude of other epochs, so "
                                           "the {} series left out by the source (nan_policy=skip) would enter the "
                                           "surrogates of others; use timeshift or timelag, or nan_policy=zero",
                                           stream.excluded_series.size()));
  if (plan_.settings.kind == mi::MethodKind::Mvl) {
    // Under the null, an epoch's mvl is proportional to its amplitude while its surrogates take
    // other epochs' amplitudes: per-epoch z follows the epoch's gain (r = 0.86 on white noise with
    // gains of sd 1 in log, docs/methods.md). Tort, hr, ndpac, plv and gc do not scale with it.
    const std::string why =
        "swap_trials compares each epoch's mvl, which grows with the epoch's amplitude, with other epochs' "
        "amplitudes, so its pac_z and p-values measure the epochs' power differences as much as their coupling";
    if (refuse_gain_confound_)
      throw ParamError("method", why + "; use method=timeshift, or a measure that does not scale with the amplitude "
                                       "(mi method=tort, hr, ndpac, plv or gc), or gain_confound=warn to run it anyway");
    ctx.warn(why);
  }
  // Every epoch's amplitude must be at hand: the whole input in one batch.
  ctx.require_batch_multiple(stream.series_count());
  warn_if_whole_input_is_large(ctx, "swap_trials", plan_.n_pha, plan_.n_amp, plan_.length);
  double distinct = 1;
  for (std::int64_t e = 2; e <= epochs_ && distinct <= static_cast<double>(plan_.n_perm); ++e)
    distinct *= static_cast<double>(e);
  if (distinct <= static_cast<double>(plan_.n_perm))
    ctx.warn(fmt::format("swap_trials: {} epochs have only {:g} orderings, fewer than the {} permutations drawn", epochs_,
                         distinct, plan_.n_perm));
  permutations_.assign(static_cast<std::size_t>(plan_.n_perm * epochs_), 0);
  json listed = json::array();
  for (std::int64_t k = 0; k < plan_.n_perm; ++k) {
    std::int64_t* perm = permutations_.data() + k * epochs_;
    surrogates::epoch_permutation(seed_, static_cast<std::uint64_t>(k), epochs_, perm);
    listed.push_back(std::vector<std::int64_t>(perm, perm + epochs_));
  }
  ctx.resolved()["shifted"] = "amplitude of epoch perm_k(e) (swap_trials)";
  ctx.resolved()["epoch_permutations"] = listed;
  ctx.resolved()["permutation_generator"] = "Fisher-Yates on splitmix64 counter-based draws, keyed by (seed, k)";
}

// The evaluations of rows evaluated together, gathered for one Method::evaluate_many call: each
// row's phase against every amplitude paired with it.
class UnitJobs {
 public:
  explicit UnitJobs(const mi::BatchInputs& in) : in_(in) {}
  // The next row's phase: the jobs added after it pair their amplitudes with it.
  void add_phase(std::int64_t phase_series) {
    phase_series_ = phase_series;
    phases_.push_back(in_.pair(phase_series, phase_series));  // its amplitude unused
  }
  void add(std::int64_t amplitude_series, std::span<const std::int64_t> shifts, double* out) {
    const mi::PairView pair = in_.pair(phase_series_, amplitude_series);
    jobs_.push_back({pair.amplitude, pair.envelope_phase, shifts, out, phases_.size() - 1});
  }
  void evaluate(const mi::Method& method, const std::stop_token& stop) const {
    if (jobs_.empty()) return;  // swap_trials past its first chunk: every pairing evaluated already
    method.evaluate_many(phases_, jobs_, stop);
  }

 private:
  const mi::BatchInputs& in_;
  std::int64_t phase_series_ = 0;
  std::vector<mi::PairView> phases_;
  std::vector<mi::AmplitudeJob> jobs_;
};

namespace {

// The rows a batch evaluates together: with the trial-level test, a group's rows in the epochs of
// one block (each row's phase meets the others' amplitudes, so each phase is binned and each
// amplitude's sums are built once for the block); otherwise each row alone. A batch starts at a
// block (align_batches); a short last block has fewer rows.
class RowUnits {
 public:
  // groups = 0: no trial-level test.
  RowUnits(std::int64_t rows, std::int64_t groups, std::int64_t block)
      : rows_(rows), groups_(groups), block_(groups > 0 ? block : 1) {}
  std::int64_t count() const {
    if (groups_ == 0) return rows_;
    const std::int64_t epochs = rows_ / groups_;
    return (epochs + block_ - 1) / block_ * groups_;
  }
  std::vector<std::int64_t> rows(std::int64_t unit) const {
    if (groups_ == 0) return {unit};
    std::vector<std::int64_t> rows;
    const std::int64_t first_epoch = unit / groups_ * block_, group = unit % groups_;
    for (std::int64_t e = first_epoch; e < first_epoch + block_ && e * groups_ < rows_; ++e) rows.push_back(e * groups_ + group);
    return rows;
  }

 private:
  std::int64_t rows_, groups_, block_;
};

constexpr std::int64_t kAligned[1] = {0};  // the one shift of a pairing

// The trial-level test's pairings of a row: its phase with its group's amplitude in each epoch f of
// its block; the observed alignment where f is its own epoch (left to the caller: the returned
// place), NaN past the end of a short last block and where either epoch is left out (never paired,
// unevaluated).
double* add_pairings(const SurrogatesPlan& plan, std::int64_t first_row, std::int64_t row, UnitJobs& jobs,
                     double* pairings) {
  const auto cells = static_cast<std::size_t>(plan.n_pha * plan.n_amp);
  const std::int64_t amplitude_series = plan.pairs.amplitude_series(row);
  const std::int64_t epoch = (first_row + row) / plan.trials.groups;
  const std::int64_t first = epoch / plan.trials.block * plan.trials.block;
  const std::int64_t last = std::min(first + plan.trials.block, plan.trials.epochs);
  const auto& left_out = plan.trials.left_out_epochs;
  const auto is_left_out = [&left_out](std::int64_t e) {
    return std::binary_search(left_out.begin(), left_out.end(), e);
  };
  const bool row_left_out = is_left_out(epoch);
  for (std::int64_t f = first; f < first + plan.trials.block; ++f) {
    double* to = pairings + static_cast<std::size_t>(f - first) * cells;
    if (f == epoch) continue;
    if (f < last && !row_left_out && !is_left_out(f))
      jobs.add(amplitude_series + (f - epoch) * plan.series_per_epoch, kAligned, to);
    else
      std::fill_n(to, cells, std::numeric_limits<double>::quiet_NaN());
  }
  return pairings + static_cast<std::size_t>(epoch - first) * cells;
}

}  // namespace

void SurrogatesStage::add_own_jobs(std::int64_t row, std::int64_t series, std::int64_t first, std::int64_t count,
                                   double* values, UnitJobs& jobs, std::vector<double>& by_epoch) const {
  const std::int64_t amplitude_series = plan_.pairs.amplitude_series(row);
  if (plan_.kind != Kind::SwapTrials) {
    jobs.add(amplitude_series,
             std::span<const std::int64_t>(plan_.alignment_shifts)
                 .subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(count)),
             values);
    return;
  }
  // swap_trials: the amplitude of the same channel (and segment) in epoch perm_k(e). There are at
  // most E distinct pairings however many permutations, so each is evaluated once (into by_epoch,
  // with the first chunk) and copied by copy_swapped.
  if (!by_epoch.empty()) return;
  const auto cells = static_cast<std::size_t>(plan_.n_pha * plan_.n_amp);
  const std::int64_t per_epoch = series / epochs_;
  const std::int64_t own_epoch = amplitude_series / per_epoch;
  by_epoch.resize(static_cast<std::size_t>(epochs_) * cells);
  std::vector<bool> needed(static_cast<std::size_t>(epochs_), false);
  needed[static_cast<std::size_t>(own_epoch)] = true;
  for (std::int64_t k = 0; k < plan_.n_perm; ++k) needed[static_cast<std::size_t>(permuted(k, own_epoch))] = true;
  for (std::int64_t other = 0; other < epochs_; ++other)
    if (needed[static_cast<std::size_t>(other)])
      jobs.add(amplitude_series + (other - own_epoch) * per_epoch, kAligned,
               by_epoch.data() + static_cast<std::size_t>(other) * cells);
}

void SurrogatesStage::copy_swapped(std::int64_t row, std::int64_t series, const std::vector<double>& by_epoch,
                                   std::int64_t first, std::int64_t count, double* values) const {
  const auto cells = static_cast<std::size_t>(plan_.n_pha * plan_.n_amp);
  const std::int64_t own_epoch = plan_.pairs.amplitude_series(row) / (series / epochs_);
  for (std::int64_t a = first; a < first + count; ++a) {
    const std::int64_t other = a == 0 ? own_epoch : permuted(a - 1, own_epoch);
    std::copy_n(by_epoch.data() + static_cast<std::size_t>(other) * cells, cells,
                values + static_cast<std::size_t>(a - first) * cells);
  }
}

void SurrogatesStage::evaluate_rows(const mi::BatchInputs& in, std::int64_t first_row,
                                    std::span<const std::int64_t> rows, std::int64_t series, std::int64_t first,
                                    std::int64_t count, double* values, std::vector<std::vector<double>>& by_epoch,
                                    double* pairings, const std::stop_token& stop) const {
  const auto cells = static_cast<std::size_t>(plan_.n_pha * plan_.n_amp);
  const std::size_t row_values = static_cast<std::size_t>(count) * cells;
  const auto row_pairings = static_cast<std::size_t>(plan_.trials.block) * cells;
  UnitJobs jobs(in);
  std::vector<double*> observed_pairing(rows.size(), nullptr);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    jobs.add_phase(plan_.pairs.phase_series(rows[i]));
    add_own_jobs(rows[i], series, first, count, values + i * row_values, jobs, by_epoch[i]);
    if (pairings)
      observed_pairing[i] =
          add_pairings(plan_, first_row, rows[i], jobs, pairings + static_cast<std::size_t>(rows[i]) * row_pairings);
  }
  jobs.evaluate(*method_, stop);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (plan_.kind == Kind::SwapTrials) copy_swapped(rows[i], series, by_epoch[i], first, count, values + i * row_values);
    if (observed_pairing[i]) std::copy_n(values + i * row_values, cells, observed_pairing[i]);
  }
}

std::int64_t SurrogatesStage::alignments_per_chunk(std::size_t rows) const {
  const std::int64_t all = plan_.n_perm + 1;
  const double per_alignment = static_cast<double>(rows) * static_cast<double>(plan_.n_pha * plan_.n_amp) * sizeof(double);
  if (static_cast<double>(all) * per_alignment <= plan_.values_limit_bytes) return all;
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(plan_.values_limit_bytes / per_alignment), 1, all);
}

void SurrogatesStage::process(Batch& batch) {
  const mi::BatchInputs inputs = mi::inputs_of(batch, plan_.n_pha, plan_.n_amp, plan_.length, plan_.envelope);
  const std::int64_t rows = plan_.pairs.row_count(batch.series_count);
  std::vector<float*> out;
  for (const auto& name : plan_.outputs)
    out.push_back(batch.emplace_rows(name, rows, {plan_.n_pha, plan_.n_amp}, DType::Float32).values<float>().data());
  // [row][epoch of the block][cell], kept for the trial-level test when there is one
  double* pairings = nullptr;
  if (plan_.trials.test != surrogates::TrialTest::None)
    pairings = batch
                   .emplace_rows(surrogates::kTrialPairingsTensor, rows,
                                 {plan_.trials.block, plan_.n_pha, plan_.n_amp}, DType::Float64)
                   .values<double>()
                   .data();
  const std::int64_t first_row = plan_.pairs.rows().rows(batch.first_series);
  const std::int64_t cells = plan_.n_pha * plan_.n_amp;
  const Shape per_surrogate{plan_.n_perm, plan_.n_pha, plan_.n_amp};
  float* kept = plan_.keep_values
                    ? batch.emplace_rows(kSurrogateValues, rows, per_surrogate, DType::Float32).values<float>().data()
                    : nullptr;
  const RowUnits units(rows, block_together() ? plan_.trials.groups : 0, plan_.trials.block);
  const std::int64_t alignments = plan_.n_perm + 1;
  oneapi::tbb::parallel_for(std::int64_t{0}, units.count(), [&](std::int64_t u) {
    const std::vector<std::int64_t> unit = units.rows(u);
    // The unit's alignments a chunk at a time (all at once within row_memory), each row's statistics
    // gathered over the chunks in k order: the same bits whatever the chunks.
    const std::int64_t chunk = alignments_per_chunk(unit.size());
    std::vector<double> values(unit.size() * static_cast<std::size_t>(chunk * cells));  // [row][alignment][cell]
    std::vector<std::vector<double>> by_epoch(unit.size());
    std::vector<surrogates::StreamedStats> stats;
    stats.reserve(unit.size());
    for (std::int64_t first = 0; first < alignments; first += chunk) {
      const std::int64_t count = std::min(chunk, alignments - first);
      evaluate_rows(inputs, first_row, unit, batch.series_count, first, count, values.data(), by_epoch,
                    first == 0 ? pairings : nullptr, batch.stop);
      for (std::size_t i = 0; i < unit.size(); ++i) {
        const double* row = values.data() + i * static_cast<std::size_t>(count * cells);
        if (first == 0) stats.emplace_back(row, cells);  // the observed alignment
        const std::int64_t skip = first == 0 ? 1 : 0;    // surrogate k is alignment k + 1
        const double* surrogates = row + skip * cells;
        const std::int64_t first_k = first + skip - 1, added = count - skip;
        stats[i].add(surrogates, first_k, added);
        if (kept)
          std::transform(surrogates, surrogates + added * cells, kept + (unit[i] * plan_.n_perm + first_k) * cells,
                         [](double v) { return static_cast<float>(v); });
      }
    }
    for (std::size_t i = 0; i < unit.size(); ++i)
      stats[i].write(plan_.n_perm, std::span<float* const, 5>(out.data(), 5), out.size() > 5 ? out[5] : nullptr,
                     plan_.norm, unit[i] * cells);
  });
  // A row that saw the stop may have thrown into an already cancelled task group, which drops it:
  // the batch, cut short, must not go on.
  if (batch.stop.stop_requested()) throw RunCancelled(-1);
}

// A block's values per thread up to trial_memory (W1's: 1.3 MB); beyond it (the heavy scaling
// job's 50 x 50 cells at 10 000 permutations: 1.6 GB a thread before row_memory), each row alone.
bool SurrogatesStage::block_together() const {
  const double row = static_cast<double>((plan_.n_perm + 1) * plan_.n_pha * plan_.n_amp) * sizeof(double);
  return plan_.trials.test != surrogates::TrialTest::None &&
         static_cast<double>(plan_.trials.block) * row <= plan_.trials.state_limit_bytes;
}

// Each thread's values of a chunk of alignments, and the trial-level sums of every condition and group.
double SurrogatesStage::host_workspace_bytes(int threads) const {
  const auto values = [this](std::size_t rows) {
    return static_cast<double>(rows) * static_cast<double>(alignments_per_chunk(rows)) *
           static_cast<double>(plan_.n_pha * plan_.n_amp) * sizeof(double);
  };
  if (plan_.trials.test == surrogates::TrialTest::None) return threads * values(1);
  // A thread evaluates a channel's block at a time: its rows' values and, for Tort, the rows of the
  // block's amplitudes, built once for the block's phases; or, past trial_memory, a row.
  const auto& shifts = plan_.alignment_shifts;
  const std::int64_t longest = shifts.empty() ? 0 : *std::max_element(shifts.begin(), shifts.end());
  const double shared = plan_.settings.kind == mi::MethodKind::Tort
                            ? mi::shared_rows_bytes(plan_.trials.block, plan_.n_amp, plan_.length + 1 + longest)
                            : 0.0;
  const double unit =
      block_together() ? values(static_cast<std::size_t>(plan_.trials.block)) + shared : values(1);
  const auto groups = static_cast<double>(plan_.trials.groups);
  // The test's sums (or pairings) and the finish's chunks; with two conditions, each epoch's z.
  const double observed =
      plan_.trials.conditions == 2
          ? static_cast<double>(plan_.trials.epochs * plan_.n_pha * plan_.n_amp) * groups * sizeof(double)
          : 0.0;
  return threads * unit + surrogates::trial_peak_bytes(plan_.trials) + observed;
}

double SurrogatesStage::streamed_bytes_per_series() const {
  const std::int64_t pairings = plan_.trials.test == surrogates::TrialTest::None ? 0 : plan_.trials.block - 1;
  return static_cast<double>(plan_.n_perm + 1 + pairings) * mi::alignment_streamed_bytes(plan_.n_amp, plan_.length);
}

double SurrogatesStage::flops_per_series() const {
  const std::int64_t pairings = plan_.trials.test == surrogates::TrialTest::None ? 0 : plan_.trials.block - 1;
  return static_cast<double>(plan_.n_perm + 1 + pairings) *
         mi::alignment_work(plan_.settings, plan_.n_pha, plan_.n_amp, plan_.length);
}

}  // namespace pacflow::stages
