#include "stages/io/hdf5/dimension_scales.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <hdf5_hl.h>

#include "stages/io/hdf5/hdf5_attributes.hpp"
#include "stages/io/hdf5/hdf5_datasets.hpp"
#include "stages/io/hdf5/hdf5_handle.hpp"

namespace pacflow::hdf5 {

namespace {

bool exists(hid_t file, const std::string& name) { return H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0; }

Id open_dataset(hid_t file, const std::string& path, const std::string& where) {
  return check(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose, where, "cannot open");
}

void write_scale(hid_t file, const AxisScale& scale, const std::string& where) {
  if (!scale.labels.empty()) {
    const Id type = check(H5Tcopy(H5T_C_S1), H5Tclose, where, "cannot make a string type");
    check(H5Tset_size(type.get(), H5T_VARIABLE), where, "cannot make a string type");
    check(H5Tset_cset(type.get(), H5T_CSET_UTF8), where, "cannot make a string type");
    const Id dataset = create_dataset(file, scale.dataset, type.get(), {scale.labels.size()}, where);
    std::vector<const char*> pointers;
    for (const auto& label : scale.labels) pointers.push_back(label.c_str());
    check(H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()), where,
          "cannot write (disk full?)");
    if (!scale.doc.empty()) write_attribute(dataset.get(), "doc", scale.doc, where);
    return;
  }
  const Id dataset = create_dataset(file, scale.dataset, H5T_IEEE_F64LE, {scale.values.size()}, where);
  check(H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, scale.values.data()), where,
        "cannot write (disk full?)");
  if (!scale.doc.empty()) write_attribute(dataset.get(), "doc", scale.doc, where);
  if (!scale.unit.empty()) write_attribute(dataset.get(), "unit", scale.unit, where);
}

// The extent of each dimension of `dataset`.
std::vector<hsize_t> extent(hid_t dataset, const std::string& where) {
  const Id space = check(H5Dget_space(dataset), H5Sclose, where, "cannot read the shape");
  std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(0, H5Sget_simple_extent_ndims(space.get()))));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return dims;
}

}  // namespace

void attach_dimension_scales(hid_t file, const std::vector<AxisScale>& scales, const std::vector<std::string>& paths,
                             const std::string& file_name) {
  for (const AxisScale& scale : scales) {
    const std::string where = fmt::format("{}:/{}", file_name, scale.dataset);
    if (!exists(file, scale.dataset)) {
      if (scale.labels.empty() && scale.values.empty()) continue;
      write_scale(file, scale, where);
    }
    const Id scale_set = open_dataset(file, scale.dataset, where);
    const std::vector<hsize_t> scale_shape = extent(scale_set.get(), where);
    if (scale_shape.size() != 1) continue;  // not a list of labels: left as it is
    const hsize_t length = scale_shape.front();
    check(H5DSset_scale(scale_set.get(), scale.axis.c_str()), where, "cannot make it a dimension scale");
    for (const std::string& path : paths) {
      const std::string at = fmt::format("{}:{}", file_name, path);
      const Id dataset = open_dataset(file, path, at);
      const auto dims = read_string_attribute(dataset.get(), "dims", at);
      if (!dims) continue;
      const std::vector<hsize_t> shape = extent(dataset.get(), at);
      for (std::size_t k = 0; k < dims->size() && k < shape.size(); ++k) {
        if ((*dims)[k] != scale.axis || shape[k] != length) continue;
        const auto index = static_cast<unsigned>(k);
        check(H5DSattach_scale(dataset.get(), scale_set.get(), index), at,
              fmt::format("cannot attach the scale {} to dimension {}", scale.dataset, k));
        check(H5DSset_label(dataset.get(), index, scale.axis.c_str()), at, "cannot label a dimension");
      }
    }
  }
}

}  // namespace pacflow::hdf5
