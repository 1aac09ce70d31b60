#include "stages/io/edf/edf_source.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>

#include "engine/api/errors.hpp"
#include "stages/io/common/epoch_overlap.hpp"
#include "stages/io/common/file_sha256.hpp"
#include "stages/io/common/padding.hpp"
#include "stages/io/edf/channel_selection.hpp"
#include "stages/io/edf/epoch_rejection.hpp"

namespace pacflow::stages {

void EdfSource::declare(ParamBinder<EdfSource>& p) {
  p.required(&EdfSource::path_, "path", "the .edf or .bdf file").as(ParamType::InputFile);
  p.optional(&EdfSource::channels_, "channels",
             "labels or indices in order, e.g. Fz,Cz or 0-15 or [Fz, \"C3 A2\"]; default: every channel");
  p.optional(&EdfSource::epoch_, "epoch", "epoch length (e.g. 4s); default: the whole recording is one epoch")
      .unit("s, ms or smp");
  p.optional(&EdfSource::step_, "step", "distance between epoch starts (default: the epoch length)").unit("s, ms or smp");
  p.optional(&EdfSource::events_given_, "events",
             "EDF+ annotation text: one epoch around each onset of it; a list [go, nogo] makes one condition per text "
             "(epochs grouped by condition, in the list's order)");
  p.optional(&EdfSource::window_given_, "window", "START:END around each event onset, e.g. -1s:3s (with events)")
      .unit("s, ms or smp");
  p.add(&EdfSource::reject_by_annotation_, "reject_by_annotation", "BAD",
        "epochs overlapping an EDF+ annotation whose text begins with this (any case; a list such as [BAD, EDGE] for "
        "several) are left out, as MNE does; none keeps every epoch");
  p.optional(&EdfSource::reject_ptp_, "reject_ptp",
             "epochs where some channel's peak-to-peak amplitude exceeds this (in the channels' physical unit, e.g. 150 "
             "for 150 uV) are left out (MNE's reject=)")
      .unit("physical unit")
      .greater_than(0);
  declare_pad(p, &EdfSource::pad_,
              "more of the recording read on each side of every epoch: filtered with it, then cropped after the "
              "hilbert stage, so short epochs keep their full filters; where the recording ends, an odd reflection "
              "stands in (reported)");
  declare_nan_policy(p, &EdfSource::nan_policy_);
}

ElementInfo EdfSource::info() {
  return element_info<EdfSource>(
      "edf", "EDF/EDF+/BDF/BDF+ recording (EDFlib) in physical units, epoched by fixed windows or EDF+ events");
}

namespace {

// events=NAME, or events=[A, B, …]: one condition per event type, each named once.
std::vector<std::string> event_types(const json& value) {
  std::vector<std::string> names;
  const auto add = [&](const json& v) {
    if (!v.is_string() || v.get<std::string>().empty())
      throw ParamError("events", fmt::format("expected an annotation's text or a list of them ([go, \"Stimulus/S  1\"]); "
                                             "got {}", v.dump()));
    if (std::find(names.begin(), names.end(), v.get<std::string>()) != names.end())
      throw ParamError("events", fmt::format("\"{}\" is listed twice", v.get<std::string>()));
    names.push_back(v.get<std::string>());
  };
  if (value.is_array()) {
    if (value.empty()) throw ParamError("events", "the list is empty");
    for (const auto& v : value) add(v);
  } else {
    add(value);
  }
  return names;
}

}  // namespace

void EdfSource::configured() {
  samples_ = SamplePolicy(nan_policy_, path_);
  if (events_given_) events_ = event_types(*events_given_);
  if (window_given_) window_ = parse_event_window("window", *window_given_);
  if (step_ && !epoch_) throw ParamError("step", "needs epoch= (the length of each window)");
  if (!events_.empty() && epoch_) throw ParamError("events", "use either epoch= (fixed windows) or events= (windows "
                                                             "around annotations), not both");
  if (!events_.empty() && !window_) throw ParamError("window", "events= needs window=START:END, e.g. window=-1s:3s");
  if (events_.empty() && window_) throw ParamError("window", "needs events=NAME (the annotation to centre on)");
  const json& reject = reject_by_annotation_;
  const auto prefix = [](const json& v) {
    if (!v.is_string() || v.get<std::string>().empty())
      throw ParamError("reject_by_annotation", fmt::format("expected the beginning of an annotation's text (BAD), a "
                                                           "list of them, or none; got {}", v.dump()));
    return v.get<std::string>();
  };
  if (reject.is_array()) {
    for (const auto& v : reject) bad_prefixes_.push_back(prefix(v));
  } else if (!(reject.is_string() && reject.get<std::string>() == "none")) {
    bad_prefixes_.push_back(prefix(reject));
  }
}

std::vector<std::size_t> EdfSource::selected_channels() const {
  std::vector<std::string> labels;
  for (const auto& s : file_->signals()) labels.push_back(s.label);
  if (labels.empty()) throw InputError(fmt::format("{}: the recording has no signals besides annotations", path_));
  if (!channels_) {
    std::vector<std::size_t> all(labels.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    return all;
  }
  try {
    return select_channels(*channels_, labels);
  } catch (const ParamError& e) {
    throw ParamError("channels", fmt::format("{}: {}", path_, e.bare_message()));
  }
}

namespace {
// "they overlap BAD_muscle (3x), BAD_eye (1x); 2 exceed reject_ptp: 12 s (Fz 212 uV), …"
std::string rejection_summary(const std::map<std::string, int>& by_annotation, const std::vector<std::string>& by_amplitude) {
  std::vector<std::string> parts;
  if (!by_annotation.empty()) {
    std::vector<std::string> names;
    for (const auto& [text, n] : by_annotation) names.push_back(fmt::format("\"{}\" ({}x)", text, n));
    parts.push_back(fmt::format("overlapping {}", fmt::join(names, ", ")));
  }
  if (!by_amplitude.empty()) {
    constexpr std::size_t kNamed = 5;
    std::vector<std::string> named(by_amplitude.begin(), by_amplitude.begin() + std::min(kNamed, by_amplitude.size()));
    parts.push_back(fmt::format("{} above reject_ptp at {}{}", by_amplitude.size(), fmt::join(named, ", "),
                                by_amplitude.size() > kNamed ? ", …" : ""));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

// A duration in samples, rounded; absurd values are refused before they can overflow.
std::int64_t to_samples(const char* param, double exact) {
  if (!(std::abs(exact) < 0x1p62)) throw ParamError(param, "is too long");
  return static_cast<std::int64_t>(std::llround(exact));
}
}  // namespace

Epochs EdfSource::fixed_epochs(std::int64_t total, double fs, json& description) const {
  const std::int64_t length = to_samples("epoch", epoch_->samples_exact(fs));
  const std::int64_t step = step_ ? to_samples("step", step_->samples_exact(fs)) : length;
  if (length < 2) throw ParamError("epoch", fmt::format("{} samples at {} Hz; an epoch needs at least 2", length, fs));
  if (step < 1) throw ParamError("step", "must be at least one sample");
  if (length > total)
    throw ParamError("epoch", fmt::format("{}: an epoch of {} samples is longer than the recording ({} samples, "
                                          "{:g} s)", path_, length, total, static_cast<double>(total) / fs));
  Epochs epochs = fixed_windows(total, length, step);
  description["epoching"] = {{"method", "fixed windows"}, {"epoch_samples", length}, {"step_samples", step},
                             {"unused_trailing_samples", total - (epochs.starts.back() + length)}};
  return epochs;
}

Epochs EdfSource::event_epochs(std::int64_t total, double fs, json& description,
                               std::vector<std::string>& warnings) const {
  if (!file_->plus())
    throw ParamError("events", fmt::format("{}: events= needs EDF+ or BDF+ annotations; this file is plain {}", path_,
                                           file_->format()));
  std::map<std::string, int> seen;
  for (const auto& a : file_->annotations()) ++seen[a.text];
  const std::int64_t start = to_samples("window", window_->start.samples_exact(fs));
  const std::int64_t end = to_samples("window", window_->end.samples_exact(fs));
  if (end - start < 2)
    throw ParamError("window", fmt::format("{} to {} samples at {} Hz; END must lie at least 2 samples after START",
                                           start, end, fs));
  Epochs epochs{{}, end - start, {}};
  std::vector<double> used_s, skipped_s;
  // One condition per event type, in the order listed; its epochs in the order of their onsets.
  for (std::size_t c = 0; c < events_.size(); ++c) {
    const std::string& event = events_[c];
    std::vector<std::pair<double, std::int64_t>> by_onset;  // (seconds, samples)
    for (const auto& a : file_->annotations())
      if (a.text == event) by_onset.emplace_back(a.onset_s, std::llround(a.onset_s * fs));
    std::stable_sort(by_onset.begin(), by_onset.end());
    if (by_onset.empty()) {
      std::vector<std::string> names;
      for (const auto& [text, n] : seen) names.push_back(fmt::format("\"{}\" ({}x)", text, n));
      throw ParamError("events", fmt::format("{}: no annotation \"{}\"; the file has {}", path_, event,
                                             names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
    }
    std::vector<std::int64_t> onsets;
    for (const auto& o : by_onset) onsets.push_back(o.second);
    std::vector<std::size_t> skipped;  // ascending
    const Epochs these = event_windows(onsets, start, end, total, skipped);
    std::vector<double> skipped_here;
    for (std::size_t i = 0, k = 0; i < onsets.size(); ++i) {
      const bool skip = k < skipped.size() && skipped[k] == i;
      (skip ? skipped_here : used_s).push_back(by_onset[i].first);
      k += skip ? 1 : 0;
    }
    if (!skipped.empty())
      warnings.push_back(fmt::format("{}: {} of {} \"{}\" events skipped: their windows reach outside the recording "
                                     "(onsets {} s)", path_, skipped.size(), onsets.size(), event,
                                     fmt::join(skipped_here, ", ")));
    if (these.starts.empty())
      throw ParamError("window", fmt::format("{}: every \"{}\" window reaches outside the recording", path_, event));
    skipped_s.insert(skipped_s.end(), skipped_here.begin(), skipped_here.end());
    epochs.starts.insert(epochs.starts.end(), these.starts.begin(), these.starts.end());
    epochs.condition.insert(epochs.condition.end(), these.starts.size(), static_cast<std::int64_t>(c));
  }
  description["epoching"] = {{"method", "event windows"},
                             {"event", events_.size() == 1 ? json(events_[0]) : json(events_)},
                             {"window_start_samples", start}, {"window_end_samples", end},
                             {"onsets_s", used_s}, {"skipped_onsets_s", skipped_s}};
  return epochs;
}

void EdfSource::reject(Epochs& epochs, double fs, const std::vector<std::size_t>& selected, json& description,
                       std::vector<std::string>& warnings, const std::stop_token& stop) const {
  const auto bad = bad_annotations(file_->annotations(), bad_prefixes_);
  json rejected = json::array();
  std::map<std::string, int> by_annotation;
  std::vector<std::string> by_amplitude;
  std::vector<std::size_t> kept;
  std::vector<double> series(static_cast<std::size_t>(std::min<std::int64_t>(epochs.length, kPtpChunk)));
  for (std::size_t e = 0; e < epochs.starts.size(); ++e) {
    const std::int64_t start = epochs.starts[e];
    const double start_s = static_cast<double>(start) / fs;
    if (const EdfAnnotation* a = overlapping_annotation(bad, start, epochs.length, fs)) {
      rejected.push_back({{"start_s", start_s}, {"reason", "annotation"}, {"annotation", a->text},
                          {"annotation_onset_s", a->onset_s}, {"annotation_duration_s", a->duration_s}});
      ++by_annotation[a->text];
      continue;
    }
    bool spoilt = false;
    for (std::size_t c = 0; reject_ptp_ && c < selected.size() && !spoilt; ++c) {
      if (stop.stop_requested()) throw RunCancelled(0);
      const auto& signal = file_->signals()[selected[c]];
      double low = std::numeric_limits<double>::infinity(), high = -low;
      for (std::int64_t at = 0; at < epochs.length; at += kPtpChunk) {
        const auto n = static_cast<int>(std::min(kPtpChunk, epochs.length - at));
        file_->read_physical(static_cast<int>(selected[c]), start + at, n, series.data());
        const auto [lo, hi] = std::minmax_element(series.begin(), series.begin() + n);
        low = std::min(low, *lo);
        high = std::max(high, *hi);
      }
      if (high - low <= *reject_ptp_) continue;
      spoilt = true;
      rejected.push_back({{"start_s", start_s}, {"reason", "peak-to-peak"}, {"channel", signal.label},
                          {"peak_to_peak", high - low}, {"unit", signal.unit}});
      by_amplitude.push_back(fmt::format("{:g} s ({} {:.4g} {})", start_s, signal.label, high - low, signal.unit));
    }
    if (!spoilt) kept.push_back(e);
  }
  description["rejected_epochs"] = rejected;
  description["reject_by_annotation"] = bad_prefixes_;
  if (reject_ptp_) description["reject_ptp"] = *reject_ptp_;
  if (rejected.empty()) return;
  if (kept.empty()) {
    // Blamed on what left most of them out, and the way out named for each rule that did.
    const bool by_ptp = by_amplitude.size() >= by_annotation.size();
    std::vector<std::string> ways;
    if (epochs.starts.size() == 1) ways.push_back("cut the recording into epochs (epoch=4s or events=) so that only the "
                                                  "spoilt ones are left out");
    if (!by_annotation.empty()) ways.push_back("set reject_by_annotation=none");
    if (!by_amplitude.empty()) ways.push_back(fmt::format("raise reject_ptp above {:g}", *reject_ptp_));
    throw ParamError(by_ptp ? "reject_ptp" : "reject_by_annotation",
                     fmt::format("{}: every one of the {} epochs is left out ({}); {}", path_, epochs.starts.size(),
                                 rejection_summary(by_annotation, by_amplitude), fmt::join(ways, ", or ")));
  }
  warnings.push_back(fmt::format("{}: {} of {} epochs left out: {} (each listed in result.json, input.rejected_epochs)",
                                 path_, rejected.size(), epochs.starts.size(),
                                 rejection_summary(by_annotation, by_amplitude)));
  json& epoching = description["epoching"];
  std::vector<std::int64_t> starts, condition;
  json onsets = json::array();
  for (const auto e : kept) {
    starts.push_back(epochs.starts[e]);
    if (!epochs.condition.empty()) condition.push_back(epochs.condition[e]);
    if (epoching.contains("onsets_s")) onsets.push_back(epoching["onsets_s"][e]);
  }
  if (epoching.contains("onsets_s")) epoching["onsets_s"] = onsets;
  epochs.starts = starts;
  epochs.condition = condition;
}

Epochs EdfSource::cut(std::int64_t total, double fs, json& description, std::vector<std::string>& warnings) const {
  Epochs epochs;
  if (epoch_) {
    epochs = fixed_epochs(total, fs, description);
  } else if (!events_.empty()) {
    epochs = event_epochs(total, fs, description, warnings);
  } else {
    epochs = {{0}, total, {}};
    description["epoching"] = {{"method", "whole recording"}};
  }
  description["epoching"]["epochs"] = epochs.starts.size();
  description["epoching"]["epoch_starts_samples"] = epochs.starts;
  return epochs;
}

StreamInfo EdfSource::open(const std::stop_token& stop) {
  try {
    file_.reset();  // EDFlib opens a file once at a time: close it before opening it again
    file_ = std::make_unique<EdfFile>(path_, !events_.empty() || !bad_prefixes_.empty());
  } catch (const InputError& e) {
    std::throw_with_nested(ParamError("path", e.bare_message()));  // located at path=… in the .pipe file
  }
  const auto selected = selected_channels();
  const auto& all = file_->signals();
  std::map<double, std::vector<std::string>> by_rate;
  for (auto i : selected) by_rate[all[i].sample_rate].push_back(all[i].label);
  if (by_rate.size() > 1) {
    std::vector<std::string> groups;
    for (const auto& [rate, labels] : by_rate) groups.push_back(fmt::format("{:g} Hz: {}", rate, fmt::join(labels, ", ")));
    throw InputError(fmt::format("{}: the selected channels have different sample rates ({}); choose channels of one "
                                 "rate with channels=",
                                 path_, fmt::join(groups, "; ")));
  }
  const EdfSignal& first = all[selected.front()];
  const double fs = first.sample_rate;
  StreamInfo info;
  info.description = {{"source", "edf"}, {"path", path_}, {"format", file_->format()}, {"fs", fs}};
  epochs_ = cut(first.samples, fs, info.description, info.warnings);
  reject(epochs_, fs, selected, info.description, info.warnings, stop);
  info.description["epoching"]["epochs"] = epochs_.starts.size();
  info.description["epoching"]["epoch_starts_samples"] = epochs_.starts;
  describe_conditions(info);
  describe_overlap(fs, info);
  recording_samples_ = first.samples;
  pad_samples_ = pad_samples(pad_, fs, -1);
  if (pad_samples_ > 0) describe_padding(fs, info.description, info.warnings);
  if (epochs_.length > INT_MAX)
    throw InputError(fmt::format("{}: epochs of {} samples are too long; cut the recording with epoch=", path_,
                                 epochs_.length));
  std::vector<std::string> labels, units;
  json resolution = json::array();
  signals_.clear();
  for (auto i : selected) {
    signals_.push_back(static_cast<int>(i));
    labels.push_back(all[i].label);
    units.push_back(all[i].unit);
    resolution.push_back(all[i].resolution());
  }
  info.leading_dims = {static_cast<std::int64_t>(epochs_.starts.size()), static_cast<std::int64_t>(signals_.size())};
  info.leading_names = {"epochs", "channels"};
  info.labels = {{}, labels};
  info.series_length = epochs_.length + 2 * pad_samples_;
  info.pad = pad_samples_;
  info.sample_rate = fs;
  // Around events, time runs from the onset: the window's first sample lies round(start · fs) samples from it.
  if (!events_.empty()) info.time_origin_s = info.description["epoching"]["window_start_samples"].get<double>() / fs;
  info.description["channel_labels"] = labels;
  info.description["channel_indices"] = selected;
  info.description["units"] = units;
  info.description["resolution_per_step"] = resolution;
  info.description["recording_samples"] = first.samples;
  info.description["sha256"] = sha256_file(path_, stop);
  info.input_files = {path_};
  samples_.scan(
      info, static_cast<std::int64_t>(signals_.size()), 1,
      [this](std::int64_t from, std::int64_t count, std::int64_t offset, std::int64_t samples, float* dst) {
        read_series(from, count, offset, samples, dst);
      },
      stop);
  return info;
}

// Several event types: each epoch's condition, and the epochs each condition kept (none is refused).
void EdfSource::describe_conditions(StreamInfo& info) const {
  if (events_.size() < 2) return;
  json conditions = json::array();
  for (std::size_t c = 0; c < events_.size(); ++c) {
    const auto first = std::find(epochs_.condition.begin(), epochs_.condition.end(), static_cast<std::int64_t>(c));
    const auto count = std::count(epochs_.condition.begin(), epochs_.condition.end(), static_cast<std::int64_t>(c));
    if (count == 0)
      throw ParamError("events", fmt::format("{}: every \"{}\" epoch is left out by {} (the warnings list each); a "
                                             "condition needs at least one epoch",
                                             path_, events_[c],
                                             reject_ptp_ ? "reject_by_annotation or reject_ptp" : "reject_by_annotation"));
    conditions.push_back({{"name", events_[c]}, {"epochs", count}, {"first_epoch", first - epochs_.condition.begin()}});
  }
  info.condition_names = events_;
  info.epoch_conditions = epochs_.condition;
  info.description["conditions"] = conditions;
}

// Epochs cut from one recording may share samples (step < epoch, event windows closer than their
// length): said in result.json and to the trial-level test (stages/io/common/epoch_overlap.hpp).
void EdfSource::describe_overlap(double fs, StreamInfo& info) const {
  const auto& starts = epochs_.starts;
  std::optional<std::int64_t> step;
  if (step_ && starts.size() > 1) step = starts[1] - starts[0];
  describe_epoch_overlap(starts, epochs_.length, fs, step, info);
}

void EdfSource::read(std::int64_t first, std::int64_t count, float* dst) {
  read_series(first, count, 0, epochs_.length + 2 * pad_samples_, dst);
  samples_.apply(dst, first, count);
}

void EdfSource::describe_padding(double fs, json& description, std::vector<std::string>& warnings) const {
  const std::int64_t p = pad_samples_;
  description["pad_samples"] = p;
  json missing = json::array();
  std::vector<std::string> named;
  for (const auto start : epochs_.starts) {
    const std::int64_t before = std::max<std::int64_t>(0, p - start);
    const std::int64_t after = std::max<std::int64_t>(0, start + epochs_.length + p - recording_samples_);
    if (before == 0 && after == 0) continue;
    missing.push_back({{"epoch_start_s", static_cast<double>(start) / fs}, {"missing_before_samples", before},
                       {"missing_after_samples", after}});
    if (named.size() < 5) named.push_back(fmt::format("{:g} s", static_cast<double>(start) / fs));
  }
  description["padding_missing"] = missing;
  if (!missing.empty())
    warnings.push_back(fmt::format("{}: pad={} samples reaches past the recording's {} for {} of {} epochs (at {}{}): an "
                                   "odd reflection of the recording stands in for the missing samples (listed in "
                                   "result.json, input.padding_missing)",
                                   path_, p, missing.size() == 1 && missing[0]["missing_after_samples"] == 0 ? "start"
                                             : missing.size() == 1 && missing[0]["missing_before_samples"] == 0 ? "end"
                                                                                                                 : "ends",
                                   missing.size(), epochs_.starts.size(), fmt::join(named, ", "),
                                   missing.size() > named.size() ? ", …" : ""));
}

void EdfSource::read_reflected(int signal, std::int64_t from, std::int64_t n, double* dst) {
  // x(i) for i < 0 is 2 x(0) - x(-i); for i >= total, 2 x(total - 1) - x(2 (total - 1) - i): an odd
  // reflection (filtfilt's padtype=odd), the mirrored index held inside the recording.
  const std::int64_t total = recording_samples_, last = total - 1;
  const std::int64_t a = std::clamp<std::int64_t>(from, 0, total), b = std::clamp<std::int64_t>(from + n, 0, total);
  if (b > a) file_->read_physical(signal, a, static_cast<int>(b - a), dst + (a - from));
  const auto mirrored = [&](std::int64_t lo, std::int64_t hi) {  // x(lo .. hi), inclusive, read at once
    std::vector<double> x(static_cast<std::size_t>(hi - lo + 1));
    file_->read_physical(signal, lo, static_cast<int>(x.size()), x.data());
    return x;
  };
  if (from < a) {  // before the recording: mirrors of x(0 .. min(-from, last))
    const auto x = mirrored(0, std::min(-from, last));
    for (std::int64_t i = from; i < a; ++i) dst[i - from] = 2 * x[0] - x[static_cast<std::size_t>(std::min(-i, last))];
  }
  if (from + n > std::max(b, from)) {  // after it: mirrors of x(lo .. last)
    const std::int64_t lo = std::max<std::int64_t>(0, 2 * last - (from + n - 1));
    const auto x = mirrored(lo, last);
    for (std::int64_t i = std::max(b, from); i < from + n; ++i)
      dst[i - from] = 2 * x.back() - x[static_cast<std::size_t>(std::max<std::int64_t>(2 * last - i, 0) - lo)];
  }
}

void EdfSource::read_series(std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples,
                            float* dst) {
  const auto channels = static_cast<std::int64_t>(signals_.size());
  buffer_.resize(static_cast<std::size_t>(samples));
  for (std::int64_t s = first; s < first + count; ++s) {
    const auto start = epochs_.starts[static_cast<std::size_t>(s / channels)] - pad_samples_;
    read_reflected(signals_[static_cast<std::size_t>(s % channels)], start + offset, samples, buffer_.data());
    float* out = dst + (s - first) * samples;
    for (std::size_t t = 0; t < buffer_.size(); ++t) out[t] = static_cast<float>(buffer_[t]);
  }
}

}  // namespace pacflow::stages
