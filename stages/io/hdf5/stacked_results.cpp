#include "stages/io/hdf5/stacked_results.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <optional>
#include <system_error>

#include "engine/api/errors.hpp"
#include "engine/io/atomic_file.hpp"
#include "stages/io/hdf5/dimension_scales.hpp"
#include "stages/io/hdf5/hdf5_attributes.hpp"
#include "stages/io/hdf5/hdf5_datasets.hpp"

namespace pacflow::stages {

namespace {

std::vector<hsize_t> extent_of(const Shape& shape, std::optional<std::size_t> leading = std::nullopt) {
  std::vector<hsize_t> dims;
  if (leading) dims.push_back(*leading);
  dims.insert(dims.end(), shape.begin(), shape.end());
  return dims;
}

// Writes `values` as the whole of a new float32 dataset `name` under `where_in` with `dims` and `doc`.
void write_whole(hid_t where_in, const std::string& name, const Shape& shape, const float* values,
                 const std::vector<std::string>& dims, const std::string& doc, const std::string& where) {
  const hdf5::Id dataset = hdf5::create_dataset(where_in, name, H5T_IEEE_F32LE, extent_of(shape), where);
  hdf5::check(H5Dwrite(dataset.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), where,
              "cannot write (disk full?)");
  if (!dims.empty()) hdf5::write_attribute(dataset.get(), "dims", dims, where);
  if (!doc.empty()) hdf5::write_attribute(dataset.get(), "doc", doc, where);
}

std::vector<float> read_whole(hid_t file, const std::string& name, std::size_t count, const std::string& where) {
  const hdf5::Id dataset = hdf5::check(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose, where, "cannot open");
  std::vector<float> values(count);
  hdf5::check(H5Dread(dataset.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), where,
              "cannot read back");
  return values;
}

// Recording i's copy of a per-epoch array in the scratch file.
std::string scratch_name(const std::string& array, std::size_t index) { return fmt::format("{}.{}", array, index); }

}  // namespace

StackedResults::StackedResults(std::filesystem::path path, std::vector<std::string> ids, const ResultArrays& first)
    : path_(std::move(path)), ids_(std::move(ids)), coordinates_(first.coordinates), added_(ids_.size(), false) {
  const hdf5::QuietErrors quiet;
  std::error_code error;
  if (!path_.parent_path().empty()) std::filesystem::create_directories(path_.parent_path(), error);
  if (error)
    throw InputError(fmt::format("{}: cannot create its folder: {}", path_.string(), error.message()));
  temp_ = temp_path_for(path_);
  file_ = hdf5::create_file(temp_);
  for (const ResultArray& array : first.arrays) {
    const std::string where = fmt::format("{}:/{}", path_.string(), array.name);
    Stack& stack = stacks_.emplace_back(Stack{array.name, array.shape, array.dims, array.doc, {}, false, {}});
    stack.per_epoch = !array.dims.empty() && array.dims.front() == "epochs";
    if (stack.per_epoch) {
      stack.epochs.assign(ids_.size(), 0);
      continue;
    }
    stack.dataset = hdf5::create_dataset(file_.get(), array.name, H5T_IEEE_F32LE, extent_of(array.shape, ids_.size()), where);
    std::vector<std::string> names{"recordings"};
    names.insert(names.end(), array.dims.begin(), array.dims.end());
    hdf5::write_attribute(stack.dataset.get(), "dims", names, where);
    hdf5::write_attribute(stack.dataset.get(), "doc", array.doc, where);
  }
  if (std::any_of(stacks_.begin(), stacks_.end(), [](const Stack& s) { return s.per_epoch; })) {
    scratch_path_ = temp_.string() + ".epochs";
    scratch_ = hdf5::create_file(scratch_path_);
  }
  hdf5::write_coordinates(file_.get(), first.coordinates, path_.string());
}

StackedResults::~StackedResults() {
  const hdf5::QuietErrors quiet;
  std::error_code ignored;
  scratch_.reset();
  if (!scratch_path_.empty()) std::filesystem::remove(scratch_path_, ignored);
  if (temp_.empty()) return;  // handed to an OutputSet
  // Abandoned (a recording failed or could not be stacked): closed quietly, datasets first.
  for (Stack& stack : stacks_) stack.dataset.reset();
  file_.reset();
  std::filesystem::remove(temp_, ignored);
}

void StackedResults::add_stacked(Stack& stack, std::size_t index, const ResultArray& array) {
  const std::string where = fmt::format("{}:/{}", path_.string(), stack.name);
  const hdf5::Id file_space = hdf5::check(H5Dget_space(stack.dataset.get()), H5Sclose, where, "cannot read the shape");
  std::vector<hsize_t> start(stack.shape.size() + 1, 0);
  start[0] = index;
  const std::vector<hsize_t> count = extent_of(stack.shape, 1);
  hdf5::check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
              where, "cannot select the recording's slab");
  const hdf5::Id memory_space = hdf5::check(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr),
                                            H5Sclose, where, "cannot make a dataspace");
  hdf5::check(H5Dwrite(stack.dataset.get(), H5T_NATIVE_FLOAT, memory_space.get(), file_space.get(), H5P_DEFAULT,
                       array.values.data()),
              where, "cannot write (disk full?)");
}

void StackedResults::add(std::size_t index, const ResultArrays& results) {
  const hdf5::QuietErrors quiet;
  const std::string& id = ids_.at(index);
  const auto refuse = [&](const std::string& why) {
    throw InputError(fmt::format("{}: cannot stack recording {} with {}: {}; every recording's results must have the "
                                 "same channels, conditions and bands (epochs may differ)",
                                 path_.string(), id, ids_.front(), why));
  };
  if (results.arrays.size() != stacks_.size())
    refuse(fmt::format("{} result arrays against {}", results.arrays.size(), stacks_.size()));
  for (std::size_t k = 0; k < stacks_.size(); ++k) {
    const ResultArray& array = results.arrays[k];
    Stack& stack = stacks_[k];
    if (array.name != stack.name) refuse(fmt::format("{} where {} was due", array.name, stack.name));
    // Per-epoch arrays may have another number of epochs; everything after it must agree.
    const bool same = stack.per_epoch ? array.shape.size() == stack.shape.size() &&
                                            std::equal(array.shape.begin() + 1, array.shape.end(), stack.shape.begin() + 1)
                                      : array.shape == stack.shape;
    if (!same)
      refuse(fmt::format("{} has shape [{}] against [{}]", array.name, fmt::join(array.shape, ", "),
                         fmt::join(stack.shape, ", ")));
    if (!stack.per_epoch) {
      add_stacked(stack, index, array);
      continue;
    }
    stack.epochs[index] = array.shape.front();
    write_whole(scratch_.get(), scratch_name(stack.name, index), array.shape, array.values.data(), {}, {},
                fmt::format("{}:/{}", scratch_path_.string(), scratch_name(stack.name, index)));
  }
  added_[index] = true;
}

void StackedResults::add_summary(const std::string& name, const std::vector<std::size_t>& shape,
                                 const std::vector<std::string>& dims, const std::string& doc,
                                 const std::vector<double>& values) {
  const hdf5::QuietErrors quiet;
  const std::vector<float> single(values.begin(), values.end());
  write_whole(file_.get(), name, Shape(shape.begin(), shape.end()), single.data(), dims, doc,
              fmt::format("{}:/{}", path_.string(), name));
  summaries_.push_back(name);
}

void StackedResults::attach_scales(const nlohmann::json& attributes, const std::vector<std::string>& ragged) {
  std::vector<hdf5::AxisScale> scales{{"recordings", "recordings", ids_, {}, "", "each recording's id"}};
  const auto labels = [&](const char* axis, const char* attribute, const char* doc) {
    if (attributes.contains(attribute))
      scales.push_back({axis, axis, attributes[attribute].get<std::vector<std::string>>(), {}, "", doc});
  };
  const auto centres = [&](const char* axis, const char* attribute, const char* doc) {
    if (attributes.contains(attribute))
      scales.push_back({axis, axis, {}, attributes[attribute].get<std::vector<double>>(), "Hz", doc});
  };
  labels("channels", "channel_names", "each channel's name");
  labels("conditions", "condition_names", "each condition's name");
  centres("phase_bands", "pha_centres_hz", "each phase band's centre");
  centres("amplitude_bands", "amp_centres_hz", "each amplitude band's centre");
  for (const Coordinate& c : coordinates_)
    if (c.name == "erpac_times") scales.push_back({"times", c.name, {}, {}, c.unit, c.doc});
  std::vector<std::string> paths;
  for (const Stack& stack : stacks_) {
    if (std::find(ragged.begin(), ragged.end(), stack.name) == ragged.end()) {
      paths.push_back("/" + stack.name);
      continue;
    }
    for (const auto& id : ids_) paths.push_back(fmt::format("/{}/{}", stack.name, id));
  }
  for (const auto& name : summaries_) paths.push_back("/" + name);
  hdf5::attach_dimension_scales(file_.get(), scales, paths, path_.string());
}

// A per-epoch array at the end: stacked when every recording has as many epochs, else one dataset
// per recording in a group of the array's name.
void StackedResults::finish_per_epoch(Stack& stack, std::vector<std::string>& ragged) {
  const std::string where = fmt::format("{}:/{}", path_.string(), stack.name);
  const bool equal = std::all_of(stack.epochs.begin(), stack.epochs.end(),
                                 [&](std::int64_t e) { return e == stack.epochs.front(); });
  const auto shape_of = [&](std::size_t i) {
    Shape shape = stack.shape;
    shape.front() = stack.epochs[i];
    return shape;
  };
  const auto values_of = [&](std::size_t i) {
    return read_whole(scratch_.get(), scratch_name(stack.name, i), static_cast<std::size_t>(element_count(shape_of(i))),
                      fmt::format("{}:/{}", scratch_path_.string(), scratch_name(stack.name, i)));
  };
  if (equal) {
    stack.shape = shape_of(0);
    stack.dataset = hdf5::create_dataset(file_.get(), stack.name, H5T_IEEE_F32LE, extent_of(stack.shape, ids_.size()), where);
    std::vector<std::string> names{"recordings"};
    names.insert(names.end(), stack.dims.begin(), stack.dims.end());
    hdf5::write_attribute(stack.dataset.get(), "dims", names, where);
    hdf5::write_attribute(stack.dataset.get(), "doc", stack.doc, where);
    for (std::size_t i = 0; i < ids_.size(); ++i) {
      ResultArray one{stack.name, stack.shape, stack.dims, stack.doc, values_of(i)};
      add_stacked(stack, i, one);
    }
    return;
  }
  ragged.push_back(stack.name);
  const hdf5::Id group = hdf5::create_group(file_.get(), stack.name, where);
  hdf5::write_attribute(group.get(), "ragged",
                        "the recordings have different numbers of epochs: one dataset per recording, named by its id",
                        where);
  hdf5::write_attribute(group.get(), "doc", stack.doc, where);
  for (std::size_t i = 0; i < ids_.size(); ++i) {
    const std::vector<float> values = values_of(i);
    write_whole(group.get(), ids_[i], shape_of(i), values.data(), stack.dims, stack.doc,
                fmt::format("{}/{}", where, ids_[i]));
  }
}

void StackedResults::finish(const nlohmann::json& attributes, OutputSet& outputs) {
  const hdf5::QuietErrors quiet;
  if (const auto missing = std::find(added_.begin(), added_.end(), false); missing != added_.end())
    throw std::logic_error(fmt::format("{}: recording {} was never added", path_.string(),
                                       ids_[static_cast<std::size_t>(missing - added_.begin())]));
  std::vector<std::string> ragged;
  for (Stack& stack : stacks_)
    if (stack.per_epoch) finish_per_epoch(stack, ragged);
  attach_scales(attributes, ragged);
  hdf5::write_attribute(file_.get(), "recordings", ids_, path_.string());
  if (!ragged.empty()) hdf5::write_attribute(file_.get(), "ragged_arrays", ragged, path_.string());
  hdf5::write_attributes(file_.get(), attributes, path_.string());
  for (Stack& stack : stacks_) stack.dataset.reset();
  if (!file_.reset()) hdf5::fail(path_.string(), "cannot finish writing the file (disk full?)");
  outputs.add(temp_, path_);
  temp_.clear();  // the set's now
}

}  // namespace pacflow::stages
