#include "stages/io/npy/npy_source.hpp"

#include "stages/io/common/array_conditions.hpp"

#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "stages/io/common/epoch_overlap.hpp"
#include "stages/io/common/file_sha256.hpp"
#include "stages/io/common/finite_samples.hpp"
#include "stages/io/common/padding.hpp"
#include "stages/io/npy/npz_archive.hpp"

namespace pacflow::stages {

void NpySource::declare(ParamBinder<NpySource>& p) {
  p.required(&NpySource::path_, "path", "the .npy file or .npz archive").as(ParamType::InputFile);
  p.required(&NpySource::fs_, "fs", "sample rate").unit("Hz").greater_than(0);
  p.optional(&NpySource::layout_given_, "layout",
             "the array's axes in order: E (epochs), C (channels), S (segments), T (time), e.g. ECT, ET (TensorPAC's "
             "(n_epochs, n_times)), TC; default T, CT, ECT or ECST by rank (a 2-D array read as CT is warned about)");
  p.optional(&NpySource::key_, "key",
             "the array of an .npz archive (np.savez's keyword, e.g. x for x.npy); needed when it holds several");
  declare_pad(p, &NpySource::pad_,
              "context at each end of every series, held in the array (epochs cut with margins): filtered with the "
              "series, then cropped after the hilbert stage, so later stages see the window between");
  declare_nan_policy(p, &NpySource::nan_policy_);
  declare_epoch_step(p, &NpySource::epoch_step_);
  declare_array_conditions(p, &NpySource::conditions_, &NpySource::condition_names_);
}

ElementInfo NpySource::info() {
  return element_info<NpySource>("npy",
                                 "NumPy array from an .npy file or an .npz archive (key=), axes named by layout= (ECT, "
                                 "ET, TC, ECST, …); float32/float64/int16/int32");
}

void NpySource::configured() {
  samples_ = SamplePolicy(nan_policy_, path_);
  if (layout_given_) given_layout_ = ArrayLayout::parse(*layout_given_);
}

std::string NpySource::open_values(json& description) {
  try {
    if (!is_zip_archive(path_)) {
      if (key_)
        throw ParamError("key", fmt::format("{} is an .npy file, which holds one array; key= picks an array of an .npz "
                                            "archive",
                                            path_));
      values_ = std::make_unique<NpyRowReader>(path_);
      return path_;
    }
    NpzMember member = open_npz_member(path_, key_);
    description["key"] = member.key;
    description["member_compression"] = member.compressed ? "deflated" : "stored";
    values_ = std::move(member.values);
    return member.where;
  } catch (const ParamError&) {
    throw;
  } catch (const InputError& e) {
    std::throw_with_nested(ParamError("path", e.bare_message()));  // located at path=… in the .pipe file
  }
}

StreamInfo NpySource::open(const std::stop_token& stop) {
  StreamInfo info;
  info.description = {{"source", "npy"}, {"path", path_}};
  const std::string where = open_values(info.description);
  const NpyHeader& header = values_->header();
  const Shape& s = header.shape;
  if (given_layout_) {
    layout_ = *given_layout_;
  } else {
    if (s.empty() || s.size() > 4)
      throw InputError(fmt::format("{}: array of shape {} is not supported; expected [T], [C][T], [E][C][T] or "
                                   "[E][C][S][T] (S segments per series), or name its axes with layout=",
                                   where, shape_string(s)));
    layout_ = ArrayLayout::default_for(s.size());
    if (s.size() == 2)
      info.warnings.push_back(fmt::format(
          "{}: the 2-D array of shape {} is read as layout=CT: {} channels of one epoch, {} samples each; say "
          "layout=ET for {} epochs of one channel (TensorPAC's (n_epochs, n_times)), or layout=TC / TE for time first",
          where, shape_string(s), s[0], s[1], s[0]));
  }
  layout_.bind(s, where);
  const bool compressed = info.description.value("member_compression", "") == "deflated";
  if (compressed && !layout_.in_stream_order())
    throw ParamError("layout", fmt::format("{}: the member is compressed (np.savez_compressed) and layout={} does not "
                                           "store each series whole in pacflow's order (epochs, channels, segments, "
                                           "time), so every batch would inflate it again; save it with np.savez, or "
                                           "as an .npy file",
                                           where, layout_.axes()));
  info.leading_dims = layout_.leading();
  info.leading_names = layout_.leading_names();
  info.series_length = layout_.length();
  info.pad = pad_samples(pad_, fs_, info.series_length);
  info.sample_rate = fs_;
  if (info.pad > 0) info.description["pad_samples"] = info.pad;
  describe_array_epoch_step(epoch_step_, layout_.axes().find('E') != std::string::npos, info);
  describe_array_conditions(conditions_, condition_names_, info);
  info.description["file_shape"] = s;
  info.description["layout"] = layout_.axes();
  info.description["dtype"] = dtype_name(header.dtype);
  info.description["fs"] = fs_;
  info.description["sha256"] = sha256_file(path_, stop);
  info.input_files = {path_};
  samples_.scan(
      info, layout_.channels(), layout_.segments(),
      [this](std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples, float* dst) {
        read_raw(first, count, offset, samples, dst);
      },
      stop);
  return info;
}

void NpySource::read_raw(std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples,
                         float* dst) {
  // A forward pass reads each page once, unless time comes before another axis: then every batch
  // needs pages of the whole array, and they are kept.
  layout_.read(*values_, first, count, offset, samples, dst, /*release=*/layout_.time_last());
}

void NpySource::read(std::int64_t first, std::int64_t count, float* dst) {
  read_raw(first, count, 0, layout_.length(), dst);  // batches come in order, once each
  samples_.apply(dst, first, count);
}

}  // namespace pacflow::stages
