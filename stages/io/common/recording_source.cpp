#include "stages/io/common/recording_source.hpp"

#include <algorithm>
#include <climits>
#include <fmt/format.h>
#include <map>

#include "engine/api/errors.hpp"
#include "stages/io/common/channel_selection.hpp"
#include "stages/io/common/events_tsv.hpp"
#include "stages/io/common/file_sha256.hpp"

namespace pacflow::stages {

std::vector<std::string> parse_event_types(const std::string& param, const json& value) {
  std::vector<std::string> names;
  const auto add = [&](const json& v) {
    if (!v.is_string() || v.get<std::string>().empty())
      throw ParamError(param, fmt::format("expected an annotation's text or a list of them ([go, \"Stimulus/S  1\"]); "
                                          "got {}",
                                          v.dump()));
    if (std::find(names.begin(), names.end(), v.get<std::string>()) != names.end())
      throw ParamError(param, fmt::format("\"{}\" is listed twice", v.get<std::string>()));
    names.push_back(v.get<std::string>());
  };
  if (value.is_array()) {
    if (value.empty()) throw ParamError(param, "the list is empty");
    for (const auto& v : value) add(v);
  } else {
    add(value);
  }
  return names;
}

std::vector<std::string> parse_bad_prefixes(const std::string& param, const json& reject) {
  const auto prefix = [&](const json& v) {
    if (!v.is_string() || v.get<std::string>().empty())
      throw ParamError(param, fmt::format("expected the beginning of an annotation's text (BAD), a list of them, or "
                                          "none; got {}",
                                          v.dump()));
    return v.get<std::string>();
  };
  std::vector<std::string> prefixes;
  if (reject.is_array()) {
    for (const auto& v : reject) prefixes.push_back(prefix(v));
  } else if (!(reject.is_string() && reject.get<std::string>() == "none")) {
    prefixes.push_back(prefix(reject));
  }
  return prefixes;
}

void RecordingSource::configured() {
  samples_ = SamplePolicy(nan_policy_, path_);
  if (step_ && !epoch_) throw ParamError("step", "needs epoch= (the length of each window)");
  if (!events_.empty() && epoch_) throw ParamError("events", "use either epoch= (fixed windows) or events= (windows "
                                                             "around annotations), not both");
  if (!events_.empty() && !window_) throw ParamError("window", "events= needs window=START:END, e.g. window=-1s:3s");
  if (events_.empty() && window_) throw ParamError("window", "needs events=NAME (the annotation to centre on)");
}

std::vector<std::size_t> RecordingSource::selected_channels() const {
  std::vector<std::string> labels;
  for (const auto& s : file_->signals()) labels.push_back(s.label);
  if (labels.empty()) throw InputError(fmt::format("{}: the recording has no signals besides annotations", path_));
  if (!channels_) {
    std::vector<std::size_t> all(labels.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    return all;
  }
  try {
    return channels_->select(labels);
  } catch (const ParamError& e) {
    throw ParamError("channels", fmt::format("{}: {}", path_, e.bare_message()));
  }
}

double RecordingSource::common_rate(const std::vector<std::size_t>& selected) const {
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
  return by_rate.begin()->first;
}

StreamInfo RecordingSource::open(const std::stop_token& stop) {
  try {
    file_.reset();  // EDFlib opens a file once at a time: close it before opening it again
    file_ = open_file(path_, !events_file_ && (!events_.empty() || !bad_prefixes_.empty()));
  } catch (const InputError& e) {
    std::throw_with_nested(ParamError("path", e.bare_message()));  // located at path=… in the .pipe file
  }
  const auto selected = selected_channels();
  const double fs = common_rate(selected);
  const std::int64_t total = file_->signals()[selected.front()].samples;
  StreamInfo info;
  info.description = {{"source", texts_.source}, {"path", path_}, {"format", file_->format()}, {"fs", fs}};
  info.warnings = file_->warnings();
  read_events_file(info, stop);
  epochs_ = cut(total, fs, info.description, info.warnings);
  reject(epochs_, fs, selected, info.description, info.warnings, stop);
  info.description["epoching"]["epochs"] = epochs_.starts.size();
  info.description["epoching"]["epoch_starts_samples"] = epochs_.starts;
  describe_conditions(info);
  describe_overlap(fs, info);
  recording_samples_ = total;
  pad_samples_ = pad_samples(pad_, fs, -1);
  if (pad_samples_ > 0) describe_padding(fs, info.description, info.warnings);
  if (epochs_.length > INT_MAX)
    throw InputError(fmt::format("{}: epochs of {} samples are too long; cut the recording with epoch=", path_,
                                 epochs_.length));
  describe_channels(selected, info);
  info.leading_dims = {static_cast<std::int64_t>(epochs_.starts.size()), static_cast<std::int64_t>(signals_.size())};
  info.leading_names = {"epochs", "channels"};
  info.series_length = epochs_.length + 2 * pad_samples_;
  info.pad = pad_samples_;
  info.sample_rate = fs;
  // Around events, time runs from the onset: the window's first sample lies round(start · fs) samples from it.
  if (!events_.empty()) info.time_origin_s = info.description["epoching"]["window_start_samples"].get<double>() / fs;
  info.description["recording_samples"] = total;
  info.description["sha256"] = sha256_file(path_, stop);
  const auto files = file_->files();
  for (std::size_t f = 1; f < files.size(); ++f)  // beside the file named (a header): the data, the markers
    info.description["other_files"].push_back({{"path", files[f]}, {"sha256", sha256_file(files[f], stop)}});
  info.input_files.insert(info.input_files.end(), files.begin(), files.end());
  samples_.scan(
      info, static_cast<std::int64_t>(signals_.size()), 1,
      [this](std::int64_t from, std::int64_t count, std::int64_t offset, std::int64_t samples, float* dst) {
        read_series(from, count, offset, samples, dst);
      },
      stop);
  return info;
}

void RecordingSource::read_events_file(StreamInfo& info, const std::stop_token& stop) {
  file_events_.clear();
  if (!events_file_) return;
  try {
    file_events_ = read_events_tsv(*events_file_);
  } catch (const InputError& e) {
    std::throw_with_nested(ParamError("events_file", e.what()));  // e.what(): the file and its line
  }
  info.description["events_file"] = {{"path", events_file_->string()}, {"sha256", sha256_file(events_file_->string(), stop)}};
  info.input_files.push_back(events_file_->string());
}

const std::vector<RecordingAnnotation>& RecordingSource::annotations() const {
  return events_file_ ? file_events_ : file_->annotations();
}

std::vector<ParamSpec> RecordingSource::recording_params(const RecordingTexts& texts) {
  // Declared for a class no one makes: only the declarations are kept.
  struct Declared final : RecordingSource {
    std::unique_ptr<RecordingFile> open_file(const std::string&, bool) const override { return nullptr; }
  };
  ParamBinder<Declared> binder;
  declare_recording(binder, texts);
  return binder.specs();
}

void RecordingSource::describe_channels(const std::vector<std::size_t>& selected, StreamInfo& info) {
  const auto& all = file_->signals();
  std::vector<std::string> labels, units;
  json resolution = json::array();
  signals_.clear();
  for (auto i : selected) {
    signals_.push_back(static_cast<int>(i));
    labels.push_back(all[i].label);
    units.push_back(all[i].unit);
    resolution.push_back(all[i].resolution);
  }
  info.labels = {{}, labels};
  info.description["channel_labels"] = labels;
  info.description["channel_indices"] = selected;
  info.description["units"] = units;
  info.description["resolution_per_step"] = resolution;
}

void RecordingSource::read(std::int64_t first, std::int64_t count, float* dst) {
  read_series(first, count, 0, epochs_.length + 2 * pad_samples_, dst);
  samples_.apply(dst, first, count);
}

void RecordingSource::describe_padding(double fs, json& description, std::vector<std::string>& warnings) const {
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

void RecordingSource::read_reflected(int signal, std::int64_t from, std::int64_t n, double* dst) {
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

void RecordingSource::read_series(std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples,
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
