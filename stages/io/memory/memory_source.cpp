#include "stages/io/memory/memory_source.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "stages/io/common/array_conditions.hpp"
#include "stages/io/common/file_sha256.hpp"
#include "stages/io/common/padding.hpp"

namespace pacflow::stages {

namespace {

std::vector<std::string> parse_channel_names(const std::string& param, const json& names) {
  if (!names.is_array() || std::any_of(names.begin(), names.end(), [](const json& n) { return !n.is_string(); }))
    throw ParamError(param, "give a list of names, one per channel");
  return names.get<std::vector<std::string>>();
}

}  // namespace

void MemorySource::declare(ParamBinder<MemorySource>& p) {
  p.required(&MemorySource::fs_, "fs", "sample rate").unit("Hz").greater_than(0);
  p.required(&MemorySource::layout_given_, "layout",
             "the array's axes in order: E (epochs), C (channels), S (segments), T (time), e.g. ECT (MNE's epochs), "
             "ET (TensorPAC's (n_epochs, n_times)), CT, ECST; never guessed");
  declare_pad(p, &MemorySource::pad_,
              "context at each end of every series, held in the array (epochs cut with margins): filtered with the "
              "series, then cropped after the hilbert stage, so later stages see the window between");
  p.parsed_optional(&MemorySource::channel_names_, "channel_names", parse_channel_names,
                    "a name for each channel, in order (e.g. MNE's ch_names), shown in result.json and the png sink's "
                    "panels");
  p.choice(&MemorySource::checksum_, "checksum", {{"sha256", true}, {"none", false}}, "sha256",
           "sha256: the array's bytes hashed into result.json (input.sha256), for provenance; none: not hashed (an "
           "array made in the same process, such as the TensorPAC drop-in's phases and amplitudes handed to fit: "
           "hashing 100 MB costs about 60 ms)");
  declare_nan_policy(p, &MemorySource::nan_policy_);
  declare_array_conditions(p, &MemorySource::conditions_, &MemorySource::condition_names_);
}

std::vector<std::string> MemorySource::channel_names(std::int64_t channels) const {
  if (!channel_names_) return {};
  if (static_cast<std::int64_t>(channel_names_->size()) != channels)
    throw ParamError("channel_names", fmt::format("{} names for {} channels", channel_names_->size(), channels));
  return *channel_names_;
}

ElementInfo MemorySource::info(std::shared_ptr<const HostArray> array) {
  ElementInfo info = element_info<MemorySource>(
      "array", "an array in the caller's memory (the Python module's NumPy arrays), axes named by layout=");
  info.make_source = [make = info.make_source, array = std::move(array)](const Params& params) {
    std::unique_ptr<Source> source = make(params);
    static_cast<MemorySource&>(*source).array_ = array;
    return source;
  };
  return info;
}

void MemorySource::configured() { layout_ = ArrayLayout::parse(layout_given_); }

StreamInfo MemorySource::open(const std::stop_token& stop) {
  if (!array_) throw std::logic_error("MemorySource: made without an array");
  samples_ = SamplePolicy(nan_policy_, array_->name);
  values_ = std::make_unique<HostArrayValues>(array_);
  layout_.bind(array_->shape, array_->name);
  StreamInfo info;
  info.leading_dims = layout_.leading();
  info.leading_names = layout_.leading_names();
  info.series_length = layout_.length();
  info.pad = pad_samples(pad_, fs_, info.series_length);
  info.sample_rate = fs_;
  const std::size_t bytes = static_cast<std::size_t>(element_count(array_->shape)) * dtype_size(array_->dtype);
  info.description = {{"source", "array"},
                      {"name", array_->name},
                      {"shape", array_->shape},
                      {"layout", layout_.axes()},
                      {"dtype", dtype_name(array_->dtype)},
                      {"fs", fs_}};
  info.description["sha256"] = checksum_ ? json(sha256_bytes(array_->data, bytes, stop)) : json("not computed (checksum=none)");
  if (info.pad > 0) info.description["pad_samples"] = info.pad;
  if (const auto names = channel_names(layout_.channels()); !names.empty()) {
    info.labels = {{}, names};
    info.description["channel_labels"] = names;
  }
  describe_array_conditions(conditions_, condition_names_, info);
  samples_.scan(
      info, layout_.channels(), layout_.segments(),
      [this](std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples, float* dst) {
        read_raw(first, count, offset, samples, dst);
      },
      stop);
  return info;
}

void MemorySource::read_raw(std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples,
                            float* dst) {
  layout_.read(*values_, first, count, offset, samples, dst, /*release=*/false);
}

void MemorySource::read(std::int64_t first, std::int64_t count, float* dst) {
  read_raw(first, count, 0, layout_.length(), dst);
  samples_.apply(dst, first, count);
}

}  // namespace pacflow::stages
