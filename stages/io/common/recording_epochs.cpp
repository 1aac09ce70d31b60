// The recording sources' epochs: the whole recording, fixed windows or windows around events, and
// the conditions and overlaps they make.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "engine/api/errors.hpp"
#include "stages/io/common/epoch_overlap.hpp"
#include "stages/io/common/recording_source.hpp"

namespace pacflow::stages {

namespace {
// A duration in samples, rounded; absurd values are refused before they can overflow.
std::int64_t to_samples(const char* param, double exact) {
  if (!(std::abs(exact) < 0x1p62)) throw ParamError(param, "is too long");
  return static_cast<std::int64_t>(std::llround(exact));
}
}  // namespace

Epochs RecordingSource::fixed_epochs(std::int64_t total, double fs, json& description) const {
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

Epochs RecordingSource::event_epochs(std::int64_t total, double fs, json& description,
                                     std::vector<std::string>& warnings) const {
  if (!events_file_ && !file_->carries_annotations())
    throw ParamError("events", fmt::format("{}: events= needs {}; this file is plain {}", path_, texts_.annotations,
                                           file_->format()));
  std::map<std::string, int> seen;
  for (const auto& a : annotations()) ++seen[a.text];
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
    for (const auto& a : annotations())
      if (a.text == event) by_onset.emplace_back(a.onset_s, std::llround(a.onset_s * fs));
    std::stable_sort(by_onset.begin(), by_onset.end());
    if (by_onset.empty()) {
      std::vector<std::string> names;
      for (const auto& [text, n] : seen) names.push_back(fmt::format("\"{}\" ({}x)", text, n));
      throw ParamError("events", fmt::format("{}: no {} \"{}\"; the file has {}",
                                             events_file_ ? events_file_->string() : path_,
                                             events_file_ ? "event of trial_type" : "annotation", event,
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

Epochs RecordingSource::cut(std::int64_t total, double fs, json& description,
                            std::vector<std::string>& warnings) const {
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

// Several event types: each epoch's condition, and the epochs each condition kept (none is refused).
void RecordingSource::describe_conditions(StreamInfo& info) const {
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
void RecordingSource::describe_overlap(double fs, StreamInfo& info) const {
  const auto& starts = epochs_.starts;
  std::optional<std::int64_t> step;
  if (step_ && starts.size() > 1) step = starts[1] - starts[0];
  describe_epoch_overlap(starts, epochs_.length, fs, step, info);
}

}  // namespace pacflow::stages
