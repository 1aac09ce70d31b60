#include "stages/io/hdf5/hdf5_source.hpp"

#include "stages/io/common/array_conditions.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "stages/io/common/epoch_runs.hpp"
#include "stages/io/common/epoch_overlap.hpp"
#include "stages/io/common/file_sha256.hpp"
#include "stages/io/common/finite_samples.hpp"
#include "stages/io/common/padding.hpp"
#include "stages/io/hdf5/hdf5_attributes.hpp"

namespace pacflow::stages {

namespace {

// "float32", "int16 big-endian", …: what the file stores, for result.json.
std::string type_name(hid_t type) {
  const H5T_class_t type_class = H5Tget_class(type);
  const std::size_t bits = H5Tget_size(type) * 8;
  std::string name = type_class == H5T_FLOAT ? fmt::format("float{}", bits)
                     : H5Tget_sign(type) == H5T_SGN_NONE ? fmt::format("uint{}", bits)
                                                          : fmt::format("int{}", bits);
  if (bits > 8 && H5Tget_order(type) == H5T_ORDER_BE) name += " big-endian";
  return name;
}

}  // namespace

void Hdf5Source::declare(ParamBinder<Hdf5Source>& p) {
  p.required(&Hdf5Source::path_, "path", "the HDF5 file").as(ParamType::InputFile);
  p.required(&Hdf5Source::dataset_path_, "dataset", "path of the dataset in the file, e.g. /eeg");
  p.add(&Hdf5Source::layout_, "layout", "ECT",
        "the dataset's axes in order: a permutation of E (epochs), C (channels), T (time); CT or TC for 2-D, T for 1-D");
  p.optional(&Hdf5Source::fs_, "fs", "sample rate; when left out, read from the attribute fs_attribute")
      .unit("Hz")
      .greater_than(0);
  p.add(&Hdf5Source::fs_attribute_, "fs_attribute", "fs",
        "attribute holding the sample rate in Hz: on the dataset, else on the file's root");
  p.add(&Hdf5Source::labels_attribute_, "labels_attribute", "channel_names",
        "string-list attribute of the dataset naming the channels (used when present)");
  declare_pad(p, &Hdf5Source::pad_,
              "context at each end of every series, held in the dataset (epochs cut with margins): filtered with "
              "the series, then cropped after the hilbert stage, so later stages see the window between");
  declare_nan_policy(p, &Hdf5Source::nan_policy_);
  declare_epoch_step(p, &Hdf5Source::epoch_step_);
  declare_array_conditions(p, &Hdf5Source::conditions_, &Hdf5Source::condition_names_);
}

ElementInfo Hdf5Source::info() {
  return element_info<Hdf5Source>(
      "hdf5", "one numeric dataset of an HDF5 file, axes in any order (layout=ECT, CTE, …), read by hyperslabs");
}

void Hdf5Source::configured() {
  samples_ = SamplePolicy(nan_policy_, path_);
  std::string seen;
  for (const char axis : layout_) {
    if (axis != 'E' && axis != 'C' && axis != 'T')
      throw ParamError("layout", fmt::format("\"{}\": '{}' is not an axis; use E (epochs), C (channels), T (time)",
                                             layout_, axis));
    if (seen.find(axis) != std::string::npos)
      throw ParamError("layout", fmt::format("\"{}\" names axis {} twice", layout_, axis));
    seen += axis;
  }
  if (seen.find('T') == std::string::npos)
    throw ParamError("layout", fmt::format("\"{}\" has no time axis T", layout_));
}

double Hdf5Source::sample_rate(hid_t dataset, json& description) const {
  if (fs_) {
    description["fs_from"] = "parameter fs";
    return *fs_;
  }
  std::optional<double> fs = hdf5::read_number_attribute(dataset, fs_attribute_, path_ + ":" + dataset_path_);
  std::string from = fmt::format("attribute {}@{}", dataset_path_, fs_attribute_);
  if (!fs) {
    fs = hdf5::read_number_attribute(file_.get(), fs_attribute_, path_);
    from = fmt::format("attribute /@{}", fs_attribute_);
  }
  if (!fs)
    throw ParamError("fs", fmt::format("{}: no sample rate: neither {} nor the file's root has an attribute \"{}\"; "
                                       "set fs=… (Hz) or fs_attribute=NAME",
                                       path_, dataset_path_, fs_attribute_));
  if (!(std::isfinite(*fs) && *fs > 0))
    throw InputError(fmt::format("{}: {} = {} is not a sample rate (> 0 Hz)", path_, from, *fs));
  description["fs_from"] = from;
  return *fs;
}

std::vector<std::string> Hdf5Source::channel_labels(hid_t dataset) const {
  auto labels = hdf5::read_string_attribute(dataset, labels_attribute_, path_ + ":" + dataset_path_);
  if (!labels) return {};
  if (static_cast<std::int64_t>(labels->size()) != channels_)
    throw InputError(fmt::format("{}: attribute {}@{} names {} channels, the dataset has {}", path_, dataset_path_,
                                 labels_attribute_, labels->size(), channels_));
  return *labels;
}

StreamInfo Hdf5Source::open(const std::stop_token& stop) {
  const hdf5::QuietErrors quiet;
  try {
    file_ = hdf5::open_file_readonly(path_);
  } catch (const InputError& e) {
    std::throw_with_nested(ParamError("path", e.bare_message()));  // located at path=… in the .pipe file
  }
  const htri_t exists = H5Lexists(file_.get(), dataset_path_.c_str(), H5P_DEFAULT);
  if (exists > 0) dataset_ = hdf5::Id(H5Dopen2(file_.get(), dataset_path_.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset_) {
    H5Eclear2(H5E_DEFAULT);
    const auto found = hdf5::dataset_paths(file_.get());
    throw ParamError("dataset", fmt::format("{}: no dataset \"{}\"; the file has {}", path_, dataset_path_,
                                            found.empty() ? "none" : fmt::format("{}", fmt::join(found, ", "))));
  }
  const std::string where = path_ + ":" + dataset_path_;
  const hdf5::Id type = hdf5::check(H5Dget_type(dataset_.get()), H5Tclose, where, "cannot read the type");
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class != H5T_INTEGER && type_class != H5T_FLOAT)
    throw InputError(fmt::format("{}: the dataset does not hold plain integers or floats", where));
  const hdf5::Id space = hdf5::check(H5Dget_space(dataset_.get()), H5Sclose, where, "cannot read the shape");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  Shape file_shape(dims.begin(), dims.end());
  if (rank != static_cast<int>(layout_.size()))
    throw ParamError("layout", fmt::format("{}: the dataset has shape {} ({} axes), layout=\"{}\" names {}", where,
                                           shape_string(file_shape), rank, layout_, layout_.size()));
  std::int64_t epochs = 1;
  for (std::size_t k = 0; k < layout_.size(); ++k) {
    const auto d = static_cast<std::int64_t>(dims[k]);
    (layout_[k] == 'E' ? epochs : layout_[k] == 'C' ? channels_ : length_) = d;
  }
  if (length_ < 2 || epochs * channels_ < 1)
    throw InputError(fmt::format("{}: shape {} (layout {}) holds no series of at least 2 samples", where,
                                 shape_string(file_shape), layout_));

  StreamInfo info;
  info.leading_dims = {epochs, channels_};
  info.leading_names = {"epochs", "channels"};
  info.series_length = length_;
  info.description = {{"source", "hdf5"},   {"path", path_},       {"dataset", dataset_path_},
                      {"layout", layout_},  {"file_shape", file_shape}, {"dtype", type_name(type.get())}};
  info.sample_rate = sample_rate(dataset_.get(), info.description);
  info.description["fs"] = info.sample_rate;
  info.pad = pad_samples(pad_, info.sample_rate, length_);
  if (info.pad > 0) info.description["pad_samples"] = info.pad;
  describe_array_epoch_step(epoch_step_, layout_.find('E') != std::string::npos, info);
  describe_array_conditions(conditions_, condition_names_, info);
  const auto labels = channel_labels(dataset_.get());
  if (!labels.empty()) {
    info.labels = {{}, labels};
    info.description["channel_labels"] = labels;
  }
  info.description["sha256"] = sha256_file(path_, stop);
  info.input_files = {path_};
  samples_.scan(
      info, channels_, 1,
      [this](std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples, float* dst) {
        read_series(first, count, offset, samples, dst);
      },
      stop);
  return info;
}

bool Hdf5Source::time_first() const {
  const auto channel_axis = layout_.find('C');
  return channel_axis != std::string::npos && layout_.find('T') < channel_axis;
}

double Hdf5Source::host_workspace_bytes(std::int64_t batch_series) const {
  return time_first() ? static_cast<double>(std::min(batch_series, channels_) * length_) * sizeof(float) : 0.0;
}

void Hdf5Source::read_run(std::int64_t epoch, std::int64_t channel, std::int64_t n, std::int64_t offset,
                          std::int64_t samples, float* dst) {
  const std::size_t rank = layout_.size();
  std::vector<hsize_t> start(rank), count(rank);
  for (std::size_t k = 0; k < rank; ++k) {
    const char axis = layout_[k];
    start[k] = static_cast<hsize_t>(axis == 'E' ? epoch : axis == 'C' ? channel : offset);
    count[k] = static_cast<hsize_t>(axis == 'E' ? 1 : axis == 'C' ? n : samples);
  }
  const std::string where = path_ + ":" + dataset_path_;
  const hdf5::Id file_space = hdf5::check(H5Dget_space(dataset_.get()), H5Sclose, where, "cannot read the shape");
  hdf5::check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
              where, "cannot select a hyperslab");
  const hdf5::Id memory_space = hdf5::check(H5Screate_simple(static_cast<int>(rank), count.data(), nullptr), H5Sclose,
                                            where, "cannot make a dataspace");
  // The run arrives in the file's axis order: [n][samples] already when channels come before time
  // (or when there is no channel axis, n = 1).
  const bool transpose = time_first();
  const std::size_t values = static_cast<std::size_t>(n * samples);
  if (transpose) scratch_.resize(values);
  float* target = transpose ? scratch_.data() : dst;
  if (H5Dread(dataset_.get(), H5T_NATIVE_FLOAT, memory_space.get(), file_space.get(), H5P_DEFAULT, target) < 0)
    hdf5::fail(where, fmt::format("cannot read epoch {}, channels {}..{}", epoch, channel, channel + n - 1));
  if (transpose)
    for (std::int64_t c = 0; c < n; ++c)
      for (std::int64_t t = 0; t < samples; ++t) dst[c * samples + t] = scratch_[static_cast<std::size_t>(t * n + c)];
}

void Hdf5Source::read_series(std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples,
                             float* dst) {
  const hdf5::QuietErrors quiet;
  for_each_epoch_run(first, count, channels_, [&](std::int64_t epoch, std::int64_t channel, std::int64_t n,
                                                   std::int64_t at) {
    read_run(epoch, channel, n, offset, samples, dst + at * samples);
  });
}

void Hdf5Source::read(std::int64_t first, std::int64_t count, float* dst) {
  read_series(first, count, 0, length_, dst);
  samples_.apply(dst, first, count);
}

}  // namespace pacflow::stages
