#pragma once
// HDF5 attributes to and from JSON-shaped values, the way h5py users expect them: numbers and
// rectangular lists of numbers as int64/float64 arrays, booleans as h5py's enum bool, text as UTF-8
// variable-length strings; anything else (objects, mixed lists, empty lists, null) as its JSON text.
#include <optional>
#include <string>
#include <vector>

#include <hdf5.h>
#include <nlohmann/json.hpp>

namespace pacflow::hdf5 {

using json = nlohmann::json;

// Writes one attribute on `object` (a file, group or dataset). `where` names it in errors.
void write_attribute(hid_t object, const std::string& name, const json& value, const std::string& where);
// Writes each member of a JSON object as an attribute.
void write_attributes(hid_t object, const json& members, const std::string& where);

// A numeric attribute holding one value; nullopt when there is no attribute of that name. Throws
// InputError when it exists but is not a single number.
std::optional<double> read_number_attribute(hid_t object, const std::string& name, const std::string& where);
// A string attribute (one string or a 1-D array; fixed or variable length); nullopt when absent.
// Throws InputError when it exists but holds no strings.
std::optional<std::vector<std::string>> read_string_attribute(hid_t object, const std::string& name,
                                                               const std::string& where);

}  // namespace pacflow::hdf5
