#include "pipelines/report/run_facts.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "engine/api/errors.hpp"
#include "engine/api/json_text.hpp"

namespace pacflow::report {

namespace {

// Where a member lies, for the error: "input.shape", "pipeline[4].params.n_perm".
std::string where(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

const json& member(const json& object, const std::string& key, const std::string& parent) {
  if (!object.is_object() || !object.contains(key))
    throw InputError(fmt::format("result.json: {} is missing; is this a pacflow run's report?", where(parent, key)));
  return object[key];
}

template <class T>
T typed(const json& value, const std::string& name) {
  try {
    return value.get<T>();
  } catch (const json::exception&) {
    const std::string text = json_text(value);
    throw InputError(fmt::format("result.json: {} has an unexpected value {}", name,
                                 text.size() > 80 ? text.substr(0, 77) + "..." : text));
  }
}

template <class T>
T required(const json& object, const std::string& key, const std::string& parent) {
  return typed<T>(member(object, key, parent), where(parent, key));
}

template <class T>
T value_or(const json& object, const std::string& key, const std::string& parent, T fallback) {
  if (!object.is_object() || !object.contains(key) || object[key].is_null()) return fallback;
  return typed<T>(object[key], where(parent, key));
}

std::int64_t dim(const std::vector<std::string>& names, const std::vector<std::int64_t>& shape, const char* name) {
  const auto at = std::find(names.begin(), names.end(), name);
  return at == names.end() ? 1 : shape[static_cast<std::size_t>(at - names.begin())];
}

InputFacts read_input(const json& report) {
  const json& in = member(report, "input", "");
  InputFacts f;
  const auto shape = required<std::vector<std::int64_t>>(in, "shape", "input");
  const auto names = required<std::vector<std::string>>(in, "dims", "input");
  if (shape.empty() || shape.size() != names.size())
    throw InputError(fmt::format("result.json: input.shape {} does not match input.dims", json(shape).dump()));
  f.source = value_or<std::string>(in, "source", "input", "");
  f.path = value_or<std::string>(in, "path", "input", "");
  f.format = value_or<std::string>(in, "format", "input", "");
  f.epochs = dim(names, shape, "epochs");
  f.channels = dim(names, shape, "channels");
  f.segments = dim(names, shape, "segments");
  f.pad_samples = value_or<std::int64_t>(in, "pad_samples", "input", 0);
  f.samples = shape.back() - 2 * f.pad_samples;
  f.sample_rate_hz = required<double>(in, "sample_rate_hz", "input");
  f.channel_labels = value_or<std::vector<std::string>>(in, "channel_labels", "input", {});
  if (in.contains("epoching")) {
    const json& e = in["epoching"];
    f.epoching = value_or<std::string>(e, "method", "input.epoching", "");
    f.epoch_step_samples = value_or<std::int64_t>(e, "step_samples", "input.epoching", 0);
    f.overlapping_pairs = value_or<std::int64_t>(e, "overlapping_pairs", "input.epoching", 0);
    if (e.contains("event"))
      f.events = e["event"].is_array()
                     ? typed<std::vector<std::string>>(e["event"], "input.epoching.event")
                     : std::vector<std::string>{typed<std::string>(e["event"], "input.epoching.event")};
    f.window_start_s = value_or<double>(e, "window_start_samples", "input.epoching", 0) / f.sample_rate_hz;
    f.window_end_s = value_or<double>(e, "window_end_samples", "input.epoching", 0) / f.sample_rate_hz;
  }
  if (in.contains("rejected_epochs") && in["rejected_epochs"].is_array())
    f.rejected_epochs = static_cast<std::int64_t>(in["rejected_epochs"].size());
  for (const json& c : in.value("conditions", json::array()))
    f.conditions.push_back({required<std::string>(c, "name", "input.conditions[]"),
                            required<std::int64_t>(c, "epochs", "input.conditions[]")});
  if (f.source == "synthetic") {
    f.f_pha = value_or<double>(in, "f_pha", "input", 0);
    f.f_amp = value_or<double>(in, "f_amp", "input", 0);
    f.model = value_or<std::string>(in, "model", "input", "");
    f.seconds = value_or<double>(in, "seconds", "input", 0);
  }
  return f;
}

BandSet read_bands(const json& params, const json& report, const std::string& prefix, const std::string& at) {
  BandSet b;
  b.edges = required<std::vector<std::array<double, 2>>>(params, prefix + "_bands_hz", at);
  b.orders = value_or<std::vector<std::int64_t>>(params, prefix + "_filter_orders", at, {});
  b.cycles = value_or<double>(params, prefix + "_cycles", at, 0);
  b.centres = value_or<std::vector<double>>(report, prefix + "_centres_hz", "", {});
  if (b.centres.size() != b.edges.size()) {  // the centre of each band, as bandpass publishes it
    b.centres.clear();
    for (const auto& [lo, hi] : b.edges) b.centres.push_back((lo + hi) / 2);
  }
  return b;
}

SurrogateFacts read_surrogates(const json& params, const std::string& at) {
  SurrogateFacts s;
  s.method = value_or<std::string>(params, "method", at, "timeshift");
  s.n = params.contains("n_perm") ? required<std::int64_t>(params, "n_perm", at)
                                  : required<std::int64_t>(params, "n", at);
  s.seed = value_or<std::int64_t>(params, "seed", at, 0);
  s.min_shift_samples = value_or<std::int64_t>(params, "min_shift_samples", at, 0);
  s.min_shift = params.contains("min_shift") && params["min_shift"].is_string() ? params["min_shift"].get<std::string>()
                                                                                : std::string();
  s.norm = value_or<std::string>(params, "norm", at, "z");
  s.p_floor = value_or<double>(params, "p_floor", at, 1.0 / (static_cast<double>(s.n) + 1));
  return s;
}

std::optional<TrialFacts> read_trial(const json& params, const json& report, const std::string& at) {
  const std::string test = value_or<std::string>(params, "trials", at, "none");
  if (test == "none" || test == "auto") return std::nullopt;
  TrialFacts t;
  t.test = test;
  // Absent in reports of versions that corrected each channel's cells on their own.
  t.family =
      value_or<std::string>(params, "trial_family", at, value_or<std::string>(report, "trial_family", "", "cells"));
  t.epochs = value_or<std::int64_t>(params, "trial_epochs", at, 0);
  t.block = value_or<std::int64_t>(params, "trial_block", at, 0);
  if (params.contains("trial_left_out_epochs") && params["trial_left_out_epochs"].is_array())
    t.left_out_epochs = static_cast<std::int64_t>(params["trial_left_out_epochs"].size());
  t.p_floor = value_or<double>(params, "trial_p_floor", at, 0);
  t.conditions = value_or<std::vector<std::string>>(params, "trial_conditions", at, {});
  t.permutations =
      value_or<std::int64_t>(params, "trial_permutations", at, value_or<std::int64_t>(params, "n_perm", at, 0));
  t.exhaustive = value_or<std::string>(params, "trial_null", at, "").rfind("every ordering", 0) == 0;
  if (value_or<std::string>(params, "contrast_statistic", at, "") == "welch_t_of_pac_z") t.contrast = "welch_z";
  t.contrast_p_floor = value_or<double>(params, "contrast_p_floor", at, 0);
  return t;
}

void read_element(const json& e, std::size_t index, const json& report, RunFacts& f) {
  const std::string at = fmt::format("pipeline[{}]", index);
  const std::string kind = required<std::string>(e, "kind", at);
  const std::string name = required<std::string>(e, "name", at);
  const json params = e.value("params", json::object());
  const std::string p = at + ".params";
  if (kind == "sink" && name == "png") f.alpha = value_or<double>(params, "alpha", p, 0.05);
  if (kind != "stage") return;
  const bool preprocessing = e.value("device", std::string()).find("as the source reads") != std::string::npos;
  if (preprocessing || name == "notch" || name == "reref") {
    f.preprocessing.push_back({name, params});
  } else if (name == "bandpass" || name == "given_bands") {
    FilterFacts filters;
    filters.given = name == "given_bands";
    filters.design = value_or<std::string>(params, "filter", p, "");
    filters.phase = read_bands(params, report, "pha", p);
    filters.amplitude = read_bands(params, report, "amp", p);
    f.filters = std::move(filters);
  } else if (name == "hilbert") {
    if (!f.filters) throw InputError(fmt::format("result.json: {} is a hilbert stage with no bandpass before it", at));
    f.filters->hilbert_pad = value_or<std::string>(params, "pad", p, "fast");
    f.filters->fft_length = value_or<std::int64_t>(params, "fft_length", p, 0);
  } else if (name == "mi") {
    MeasureFacts m;
    m.method = required<std::string>(params, "method", p);
    m.bins = value_or<int>(params, "bins", p, 18);
    m.ndpac_p = value_or<double>(params, "ndpac_p", p, 0.05);
    m.gc_unbiased = value_or<bool>(params, "gc_unbiased", p, false);
    m.pairs = params.contains("pairs") && params["pairs"].is_string() ? params["pairs"].get<std::string>() : "list";
    if (params.contains("pairs_resolved") && params["pairs_resolved"].is_array())
      m.pair_count = static_cast<std::int64_t>(params["pairs_resolved"].size());
    m.envelope_phase = std::any_of(report["pipeline"].begin(), report["pipeline"].end(),
                                   [](const json& x) { return x.value("name", std::string()) == "envelope_phase"; });
    f.measure = std::move(m);
  } else if (name == "surrogates") {
    f.surrogates = read_surrogates(params, p);
    f.trial = read_trial(params, report, p);
  } else if (name == "erpac") {
    f.erpac = ErpacFacts{value_or<std::string>(params, "mcp", p, "fdr")};
  }
}

}  // namespace

std::int64_t RunFacts::cells() const {
  return filters ? static_cast<std::int64_t>(filters->phase.edges.size() * filters->amplitude.edges.size()) : 0;
}

std::int64_t RunFacts::panels() const {
  return measure && measure->pairs != "diag" && measure->pair_count > 0 ? measure->pair_count : input.channels;
}

RunFacts read_run_facts(const json& report) {
  if (!report.is_object()) throw InputError("result.json: not a JSON object; is this a pacflow run's report?");
  RunFacts f;
  f.input = read_input(report);
  const json& pipeline = member(report, "pipeline", "");
  if (!pipeline.is_array()) throw InputError("result.json: pipeline is not a list of elements");
  for (std::size_t i = 0; i < pipeline.size(); ++i) read_element(pipeline[i], i, report, f);
  const json provenance = report.value("provenance", json::object());
  f.software.version = value_or<std::string>(provenance, "version", "provenance",
                                             value_or<std::string>(report, "version", "", "unknown"));
  f.software.commit = value_or<std::string>(provenance, "commit", "provenance", "");
  f.software.describe = value_or<std::string>(provenance, "describe", "provenance", "");
  return f;
}

}  // namespace pacflow::report
