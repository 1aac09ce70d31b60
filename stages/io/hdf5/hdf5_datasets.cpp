#include "stages/io/hdf5/hdf5_datasets.hpp"

#include <fmt/format.h>

#include "stages/io/hdf5/hdf5_attributes.hpp"

namespace pacflow::hdf5 {

Id create_dataset(hid_t file, const std::string& name, hid_t type, const std::vector<hsize_t>& dims,
                  const std::string& where) {
  const Id space =
      check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose, where, "cannot make a dataspace");
  const Id creation = untimed_creation(H5P_DATASET_CREATE, where);
  return check(H5Dcreate2(file, name.c_str(), type, space.get(), H5P_DEFAULT, creation.get(), H5P_DEFAULT), H5Dclose,
               where, "cannot create the dataset");
}

Id create_group(hid_t parent, const std::string& name, const std::string& where) {
  const Id creation = untimed_creation(H5P_GROUP_CREATE, where);
  return check(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, creation.get(), H5P_DEFAULT), H5Gclose, where,
               "cannot create the group");
}

void write_coordinates(hid_t file, const std::vector<Coordinate>& coordinates, const std::string& file_name) {
  for (const Coordinate& c : coordinates) {
    const std::string where = fmt::format("{}:/{}", file_name, c.name);
    const std::vector<double> values = c.values();
    const Id dataset = create_dataset(file, c.name, H5T_IEEE_F64LE, {values.size()}, where);
    check(H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), where,
          "cannot write (disk full?)");
    write_attribute(dataset.get(), "doc", c.doc, where);
    write_attribute(dataset.get(), "unit", c.unit, where);
  }
}

}  // namespace pacflow::hdf5
