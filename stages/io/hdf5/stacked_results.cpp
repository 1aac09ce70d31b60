#include "stages/io/hdf5/stacked_results.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <system_error>

#include "engine/api/errors.hpp"
#include "engine/io/atomic_file.hpp"
#include "stages/io/hdf5/hdf5_attributes.hpp"
#include "stages/io/hdf5/hdf5_datasets.hpp"

namespace pacflow::stages {

StackedResults::StackedResults(std::filesystem::path path, std::vector<std::string> ids, const ResultArrays& first)
    : path_(std::move(path)), ids_(std::move(ids)), added_(ids_.size(), false) {
  const hdf5::QuietErrors quiet;
  std::error_code error;
  if (!path_.parent_path().empty()) std::filesystem::create_directories(path_.parent_path(), error);
  if (error)
    throw InputError(fmt::format("{}: cannot create its folder: {}", path_.string(), error.message()));
  temp_ = temp_path_for(path_);
  file_ = hdf5::create_file(temp_);
  for (const ResultArray& array : first.arrays) {
    const std::string where = fmt::format("{}:/{}", path_.string(), array.name);
    std::vector<hsize_t> dims{ids_.size()};
    dims.insert(dims.end(), array.shape.begin(), array.shape.end());
    Stack& stack = stacks_.emplace_back(Stack{array.name, array.shape, {}});
    stack.dataset = hdf5::create_dataset(file_.get(), array.name, H5T_IEEE_F32LE, dims, where);
    std::vector<std::string> names{"recordings"};
    names.insert(names.end(), array.dims.begin(), array.dims.end());
    hdf5::write_attribute(stack.dataset.get(), "dims", names, where);
    hdf5::write_attribute(stack.dataset.get(), "doc", array.doc, where);
  }
  hdf5::write_coordinates(file_.get(), first.coordinates, path_.string());
}

StackedResults::~StackedResults() {
  if (temp_.empty()) return;  // handed to an OutputSet
  // Abandoned (a recording failed or could not be stacked): closed quietly, datasets first.
  const hdf5::QuietErrors quiet;
  for (Stack& stack : stacks_) stack.dataset.reset();
  file_.reset();
  std::error_code ignored;
  std::filesystem::remove(temp_, ignored);
}

void StackedResults::add(std::size_t index, const ResultArrays& results) {
  const hdf5::QuietErrors quiet;
  const std::string& id = ids_.at(index);
  const auto refuse = [&](const std::string& why) {
    throw InputError(fmt::format("{}: cannot stack recording {} with {}: {}; every recording's results must have the "
                                 "same epochs, channels and bands",
                                 path_.string(), id, ids_.front(), why));
  };
  if (results.arrays.size() != stacks_.size())
    refuse(fmt::format("{} result arrays against {}", results.arrays.size(), stacks_.size()));
  for (std::size_t k = 0; k < stacks_.size(); ++k) {
    const ResultArray& array = results.arrays[k];
    Stack& stack = stacks_[k];
    if (array.name != stack.name) refuse(fmt::format("{} where {} was due", array.name, stack.name));
    if (array.shape != stack.shape)
      refuse(fmt::format("{} has shape [{}] against [{}]", array.name, fmt::join(array.shape, ", "),
                         fmt::join(stack.shape, ", ")));
    const std::string where = fmt::format("{}:/{}", path_.string(), stack.name);
    const hdf5::Id file_space = hdf5::check(H5Dget_space(stack.dataset.get()), H5Sclose, where, "cannot read the shape");
    std::vector<hsize_t> start(stack.shape.size() + 1, 0), count{1};
    start[0] = index;
    count.insert(count.end(), stack.shape.begin(), stack.shape.end());
    hdf5::check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
                where, "cannot select the recording's slab");
    const hdf5::Id memory_space = hdf5::check(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr),
                                              H5Sclose, where, "cannot make a dataspace");
    hdf5::check(H5Dwrite(stack.dataset.get(), H5T_NATIVE_FLOAT, memory_space.get(), file_space.get(), H5P_DEFAULT,
                         array.values.data()),
                where, "cannot write (disk full?)");
  }
  added_[index] = true;
}

void StackedResults::add_summary(const std::string& name, const std::vector<std::size_t>& shape,
                                 const std::vector<std::string>& dims, const std::string& doc,
                                 const std::vector<double>& values) {
  const hdf5::QuietErrors quiet;
  const std::string where = fmt::format("{}:/{}", path_.string(), name);
  const std::vector<hsize_t> extent(shape.begin(), shape.end());
  const hdf5::Id dataset = hdf5::create_dataset(file_.get(), name, H5T_IEEE_F32LE, extent, where);
  const std::vector<float> single(values.begin(), values.end());
  hdf5::check(H5Dwrite(dataset.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, single.data()), where,
              "cannot write (disk full?)");
  hdf5::write_attribute(dataset.get(), "dims", dims, where);
  hdf5::write_attribute(dataset.get(), "doc", doc, where);
}

void StackedResults::finish(const nlohmann::json& attributes, OutputSet& outputs) {
  const hdf5::QuietErrors quiet;
  if (const auto missing = std::find(added_.begin(), added_.end(), false); missing != added_.end())
    throw std::logic_error(fmt::format("{}: recording {} was never added", path_.string(),
                                       ids_[static_cast<std::size_t>(missing - added_.begin())]));
  hdf5::write_attribute(file_.get(), "recordings", ids_, path_.string());
  hdf5::write_attributes(file_.get(), attributes, path_.string());
  for (Stack& stack : stacks_) stack.dataset.reset();
  if (!file_.reset()) hdf5::fail(path_.string(), "cannot finish writing the file (disk full?)");
  outputs.add(temp_, path_);
  temp_.clear();  // the set's now
}

}  // namespace pacflow::stages
