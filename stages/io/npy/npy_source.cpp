#include "stages/io/npy/npy_source.hpp"

#include <fmt/format.h>

#include "engine/errors.hpp"
#include "stages/io/common/file_sha256.hpp"
#include "stages/io/common/finite_samples.hpp"

namespace pacflow::stages {

ElementInfo NpySource::info() {
  ElementInfo info;
  info.kind = ElementKind::Source;
  info.name = "npy";
  info.summary = "NumPy .npy array [E][C][S][T], [E][C][T], [C][T] or [T]; float32/float64/int16/int32";
  info.params = {
      {"path", ParamType::InputFile, nullptr, "", "the .npy file"},
      {"fs", ParamType::Number, nullptr, "Hz", "sample rate"},
      nan_policy_param(),
  };
  info.make_source = [](const Params& p) { return std::make_unique<NpySource>(p); };
  return info;
}

NpySource::NpySource(const Params& params)
    : path_(params.string("path")), fs_(params.number("fs")),
      samples_(parse_nan_policy(params.string("nan_policy")), path_) {
  if (!(fs_ > 0)) throw ParamError("fs", fmt::format("must be > 0, got {}", fs_));
}

StreamInfo NpySource::open(const std::stop_token& stop) {
  try {
    reader_.emplace(path_);
  } catch (const InputError& e) {
    throw ParamError("path", e.bare_message());  // located at path=… in the .pipe file
  }
  const NpyHeader& header = reader_->header();
  const Shape& s = header.shape;
  if (s.empty() || s.size() > 4)
    throw InputError(fmt::format("{}: array of shape {} is not supported; expected [T], [C][T], [E][C][T] or "
                                 "[E][C][S][T] (S segments per series)",
                                 path_, shape_string(s)));
  length_ = s.back();
  leading_ = s.size() >= 3 ? Shape(s.begin(), s.end() - 1) : s.size() == 2 ? Shape{1, s[0]} : Shape{1, 1};
  if (length_ < 2 || element_count(leading_) < 1)
    throw InputError(fmt::format("{}: array of shape {} holds no series of at least 2 samples", path_,
                                 shape_string(s)));
  StreamInfo info;
  info.leading_dims = leading_;
  info.leading_names = {"epochs", "channels"};
  if (leading_.size() == 3) info.leading_names.push_back("segments");
  info.series_length = length_;
  info.sample_rate = fs_;
  info.description = {{"source", "npy"},
                      {"path", path_},
                      {"file_shape", s},
                      {"dtype", dtype_name(header.dtype)},
                      {"fs", fs_},
                      {"sha256", sha256_file(path_, stop)}};
  info.input_files = {path_};
  samples_.scan(
      info, leading_[1], leading_.size() == 3 ? leading_[2] : 1,
      [this](std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples, float* dst) {
        read_raw(first, count, offset, samples, dst);
      },
      stop);
  return info;
}

void NpySource::read_raw(std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples,
                         float* dst) const {
  if (offset == 0 && samples == length_) {
    reader_->read_as_float(first, count, length_, dst, /*release_read=*/true);
    return;
  }
  for (std::int64_t s = 0; s < count; ++s)  // a piece of each series: single values from its offset
    reader_->read_as_float((first + s) * length_ + offset, samples, 1, dst + s * samples, /*release_read=*/true);
}

void NpySource::read(std::int64_t first, std::int64_t count, float* dst) {
  reader_->read_as_float(first, count, length_, dst, /*release_read=*/true);  // batches come in order, once each
  samples_.apply(dst, first, count);
}

}  // namespace pacflow::stages
