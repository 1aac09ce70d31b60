#include "stages/io/edf/edf_source.hpp"

#include <climits>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "engine/errors.hpp"
#include "stages/io/common/file_sha256.hpp"
#include "stages/io/edf/channel_selection.hpp"

namespace pacflow::stages {

ElementInfo EdfSource::info() {
  ElementInfo info;
  info.kind = ElementKind::Source;
  info.name = "edf";
  info.summary = "EDF/EDF+/BDF/BDF+ recording (EDFlib) in physical units, epoched by fixed windows or EDF+ events";
  info.params = {
      {"path", ParamType::InputFile, nullptr, "", "the .edf or .bdf file"},
      {"channels", ParamType::Spec, nullptr, "",
       "labels or indices in order, e.g. Fz,Cz or 0-15 or [Fz, \"C3 A2\"]; default: every channel", true},
      {"epoch", ParamType::Duration, nullptr, "s, ms or smp", "epoch length (e.g. 4s); default: the whole recording is one epoch",
       true},
      {"step", ParamType::Duration, nullptr, "s, ms or smp", "distance between epoch starts (default: the epoch length)", true},
      {"events", ParamType::String, nullptr, "", "EDF+ annotation text: one epoch around each onset of it", true},
      {"window", ParamType::Spec, nullptr, "s, ms or smp", "START:END around each event onset, e.g. -1s:3s (with events)", true},
      nan_policy_param(),
  };
  info.make_source = [](const Params& p) { return std::make_unique<EdfSource>(p); };
  return info;
}

EdfSource::EdfSource(const Params& params)
    : path_(params.string("path")), samples_(parse_nan_policy(params.string("nan_policy")), path_) {
  if (params.has("channels")) channels_ = params.raw("channels");
  if (params.has("epoch")) epoch_ = params.duration("epoch");
  if (params.has("step")) step_ = params.duration("step");
  if (params.has("events")) events_ = params.string("events");
  if (params.has("window")) window_ = parse_event_window("window", params.raw("window"));
  if (step_ && !epoch_) throw ParamError("step", "needs epoch= (the length of each window)");
  if (!events_.empty() && epoch_) throw ParamError("events", "use either epoch= (fixed windows) or events= (windows "
                                                             "around annotations), not both");
  if (!events_.empty() && !window_) throw ParamError("window", "events= needs window=START:END, e.g. window=-1s:3s");
  if (events_.empty() && window_) throw ParamError("window", "needs events=NAME (the annotation to centre on)");
}

std::vector<std::size_t> EdfSource::selected_channels() const {
  std::vector<std::string> labels;
  for (const auto& s : file_->signals()) labels.push_back(s.label);
  if (labels.empty()) throw InputError(fmt::format("{}: the recording has no signals besides annotations", path_));
  if (channels_.is_null()) {
    std::vector<std::size_t> all(labels.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    return all;
  }
  try {
    return select_channels(channels_, labels);
  } catch (const ParamError& e) {
    throw ParamError("channels", fmt::format("{}: {}", path_, e.bare_message()));
  }
}

namespace {
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
  std::vector<std::int64_t> onsets;
  std::vector<double> onset_s;
  std::map<std::string, int> seen;
  for (const auto& a : file_->annotations()) {
    ++seen[a.text];
    if (a.text != events_) continue;
    onsets.push_back(std::llround(a.onset_s * fs));
    onset_s.push_back(a.onset_s);
  }
  if (onsets.empty()) {
    std::vector<std::string> names;
    for (const auto& [text, n] : seen) names.push_back(fmt::format("\"{}\" ({}x)", text, n));
    throw ParamError("events", fmt::format("{}: no annotation \"{}\"; the file has {}", path_, events_,
                                           names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
  }
  const std::int64_t start = to_samples("window", window_->start.samples_exact(fs));
  const std::int64_t end = to_samples("window", window_->end.samples_exact(fs));
  if (end - start < 2)
    throw ParamError("window", fmt::format("{} to {} samples at {} Hz; END must lie at least 2 samples after START",
                                           start, end, fs));
  std::vector<std::size_t> skipped;  // ascending
  Epochs epochs = event_windows(onsets, start, end, total, skipped);
  std::vector<double> used_s, skipped_s;
  for (std::size_t i = 0, k = 0; i < onsets.size(); ++i) {
    const bool skip = k < skipped.size() && skipped[k] == i;
    (skip ? skipped_s : used_s).push_back(onset_s[i]);
    k += skip ? 1 : 0;
  }
  description["epoching"] = {{"method", "event windows"}, {"event", events_},
                             {"window_start_samples", start}, {"window_end_samples", end},
                             {"onsets_s", used_s}, {"skipped_onsets_s", skipped_s}};
  if (!skipped.empty())
    warnings.push_back(fmt::format("{}: {} of {} \"{}\" events skipped: their windows reach outside the recording "
                                   "(onsets {} s)", path_, skipped.size(), onsets.size(), events_,
                                   fmt::join(skipped_s, ", ")));
  if (epochs.starts.empty())
    throw ParamError("window", fmt::format("{}: every \"{}\" window reaches outside the recording", path_, events_));
  return epochs;
}

Epochs EdfSource::cut(std::int64_t total, double fs, json& description, std::vector<std::string>& warnings) const {
  Epochs epochs;
  if (epoch_) {
    epochs = fixed_epochs(total, fs, description);
  } else if (!events_.empty()) {
    epochs = event_epochs(total, fs, description, warnings);
  } else {
    epochs = {{0}, total};
    description["epoching"] = {{"method", "whole recording"}};
  }
  description["epoching"]["epochs"] = epochs.starts.size();
  description["epoching"]["epoch_starts_samples"] = epochs.starts;
  return epochs;
}

StreamInfo EdfSource::open(const std::stop_token& stop) {
  try {
    file_.reset();  // EDFlib opens a file once at a time: close it before opening it again
    file_ = std::make_unique<EdfFile>(path_, !events_.empty());
  } catch (const InputError& e) {
    throw ParamError("path", e.bare_message());  // located at path=… in the .pipe file
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
  info.series_length = epochs_.length;
  info.sample_rate = fs;
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

void EdfSource::read(std::int64_t first, std::int64_t count, float* dst) {
  read_series(first, count, 0, epochs_.length, dst);
  samples_.apply(dst, first, count);
}

void EdfSource::read_series(std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples,
                            float* dst) {
  const auto channels = static_cast<std::int64_t>(signals_.size());
  buffer_.resize(static_cast<std::size_t>(samples));
  for (std::int64_t s = first; s < first + count; ++s) {
    const auto start = epochs_.starts[static_cast<std::size_t>(s / channels)];
    file_->read_physical(signals_[static_cast<std::size_t>(s % channels)], start + offset, static_cast<int>(samples),
                         buffer_.data());
    float* out = dst + (s - first) * samples;
    for (std::size_t t = 0; t < buffer_.size(); ++t) out[t] = static_cast<float>(buffer_[t]);
  }
}

}  // namespace pacflow::stages
