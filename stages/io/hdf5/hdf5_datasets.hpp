#pragma once
// Datasets of a results file, as the hdf5 sink and the stacked results of a dataset both write them.
#include <string>
#include <vector>

#include <hdf5.h>

#include "engine/api/stage.hpp"
#include "stages/io/hdf5/hdf5_handle.hpp"

namespace pacflow::hdf5 {

// A new dataset `name` of `type` and shape `dims` in `file`; `where` names it in errors. Like every
// object pacflow writes, it records no times (untimed_creation): the same results, the same bytes.
Id create_dataset(hid_t file, const std::string& name, hid_t type, const std::vector<hsize_t>& dims,
                  const std::string& where);
// A new group `name` in `parent`, recording no times.
Id create_group(hid_t parent, const std::string& name, const std::string& where);

// Each coordinate as a float64 dataset /<name> of its values, with attributes doc and unit;
// `file_name` names the file in errors.
void write_coordinates(hid_t file, const std::vector<Coordinate>& coordinates, const std::string& file_name);

}  // namespace pacflow::hdf5
