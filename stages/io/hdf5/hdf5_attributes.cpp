#include "stages/io/hdf5/hdf5_attributes.hpp"

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "engine/api/json_text.hpp"
#include "stages/io/hdf5/hdf5_handle.hpp"

namespace pacflow::hdf5 {

namespace {

Id variable_string_type(const std::string& where) {
  Id type = check(H5Tcopy(H5T_C_S1), H5Tclose, where, "cannot make a string type");
  check(H5Tset_size(type.get(), H5T_VARIABLE), where, "cannot make a string type");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), where, "cannot make a string type");
  return type;
}

// h5py's boolean: an 8-bit enum FALSE = 0, TRUE = 1 (read back as numpy.bool_).
Id bool_type(const std::string& where) {
  Id type = check(H5Tenum_create(H5T_NATIVE_INT8), H5Tclose, where, "cannot make a boolean type");
  const std::int8_t no = 0, yes = 1;
  check(H5Tenum_insert(type.get(), "FALSE", &no), where, "cannot make a boolean type");
  check(H5Tenum_insert(type.get(), "TRUE", &yes), where, "cannot make a boolean type");
  return type;
}

// Shape of a non-empty rectangular nest of numbers: [1,2] -> {2}, [[1,2],[3,4]] -> {2,2}.
bool numeric_shape(const json& v, std::vector<hsize_t>& shape, std::size_t depth = 0) {
  if (v.is_number()) return depth == shape.size();
  if (!v.is_array() || v.empty()) return false;
  if (depth == shape.size()) shape.push_back(v.size());
  else if (shape[depth] != v.size()) return false;
  for (const auto& item : v)
    if (!numeric_shape(item, shape, depth + 1)) return false;
  return true;
}

void flatten(const json& v, std::vector<json>& out) {
  if (v.is_array()) {
    for (const auto& item : v) flatten(item, out);
  } else {
    out.push_back(v);
  }
}

void write(hid_t object, const std::string& name, hid_t file_type, hid_t memory_type, hid_t space,
           const void* data, const std::string& where) {
  const std::string at = fmt::format("{} attribute \"{}\"", where, name);
  if (H5Aexists(object, name.c_str()) > 0) check(H5Adelete(object, name.c_str()), at, "cannot replace");
  const Id attribute = check(H5Acreate2(object, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                             at, "cannot create");
  check(H5Awrite(attribute.get(), memory_type, data), at, "cannot write");
}

void write_text(hid_t object, const std::string& name, const std::string& text, const std::string& where) {
  const Id type = variable_string_type(where);
  const Id space = check(H5Screate(H5S_SCALAR), H5Sclose, where, "cannot make a dataspace");
  const char* pointer = text.c_str();
  write(object, name, type.get(), type.get(), space.get(), &pointer, where);
}

void write_numbers(hid_t object, const std::string& name, const json& value, const std::vector<hsize_t>& shape,
                   const std::string& where) {
  std::vector<json> items;
  flatten(value, items);
  const Id space = shape.empty() ? check(H5Screate(H5S_SCALAR), H5Sclose, where, "cannot make a dataspace")
                                 : check(H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr),
                                         H5Sclose, where, "cannot make a dataspace");
  bool integers = true, fits_int64 = true;
  for (const auto& item : items) {
    integers = integers && item.is_number_integer();
    fits_int64 = fits_int64 && !(item.is_number_unsigned() && item.get<std::uint64_t>() > INT64_MAX);
  }
  if (integers && fits_int64) {
    std::vector<std::int64_t> values;
    for (const auto& item : items) values.push_back(item.get<std::int64_t>());
    write(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, space.get(), values.data(), where);
  } else if (integers) {  // non-negative, some above 2^63 (e.g. a 64-bit seed)
    std::vector<std::uint64_t> values;
    for (const auto& item : items) values.push_back(item.get<std::uint64_t>());
    write(object, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, space.get(), values.data(), where);
  } else {
    std::vector<double> values;
    for (const auto& item : items) values.push_back(item.get<double>());
    write(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, space.get(), values.data(), where);
  }
}

}  // namespace

void write_attribute(hid_t object, const std::string& name, const json& value, const std::string& where) {
  std::vector<hsize_t> shape;
  if (value.is_boolean()) {
    const Id type = bool_type(where);
    const Id space = check(H5Screate(H5S_SCALAR), H5Sclose, where, "cannot make a dataspace");
    const std::int8_t flag = value.get<bool>() ? 1 : 0;
    write(object, name, type.get(), type.get(), space.get(), &flag, where);
  } else if (value.is_string()) {
    write_text(object, name, value.get<std::string>(), where);
  } else if (value.is_number() || numeric_shape(value, shape)) {
    write_numbers(object, name, value, shape, where);
  } else if (value.is_array() && !value.empty() &&
             std::all_of(value.begin(), value.end(), [](const json& v) { return v.is_string(); })) {
    std::vector<std::string> texts = value.get<std::vector<std::string>>();
    std::vector<const char*> pointers;
    for (const auto& t : texts) pointers.push_back(t.c_str());
    const Id type = variable_string_type(where);
    const hsize_t n = pointers.size();
    const Id space = check(H5Screate_simple(1, &n, nullptr), H5Sclose, where, "cannot make a dataspace");
    write(object, name, type.get(), type.get(), space.get(), pointers.data(), where);
  } else {
    write_text(object, name, json_text(value), where);
  }
}

void write_attributes(hid_t object, const json& members, const std::string& where) {
  for (const auto& [key, value] : members.items()) write_attribute(object, key, value, where);
}

namespace {

// The attribute `name` of `object`, or an invalid Id when there is none.
Id open_attribute(hid_t object, const std::string& name, const std::string& where) {
  const htri_t exists = H5Aexists(object, name.c_str());
  if (exists < 0) fail(where, fmt::format("cannot look up attribute \"{}\"", name));
  if (exists == 0) return {};
  return check(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose, where,
               fmt::format("cannot open attribute \"{}\"", name));
}

}  // namespace

std::optional<double> read_number_attribute(hid_t object, const std::string& name, const std::string& where) {
  const Id attribute = open_attribute(object, name, where);
  if (!attribute) return std::nullopt;
  const Id type = check(H5Aget_type(attribute.get()), H5Tclose, where, "cannot read an attribute's type");
  const Id space = check(H5Aget_space(attribute.get()), H5Sclose, where, "cannot read an attribute's shape");
  const H5T_class_t type_class = H5Tget_class(type.get());
  if ((type_class != H5T_INTEGER && type_class != H5T_FLOAT) || H5Sget_simple_extent_npoints(space.get()) != 1)
    throw InputError(fmt::format("{}: attribute \"{}\" is not a single number", where, name));
  double value = 0;
  check(H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &value), where, fmt::format("cannot read attribute \"{}\"", name));
  return value;
}

std::optional<std::vector<std::string>> read_string_attribute(hid_t object, const std::string& name,
                                                               const std::string& where) {
  const Id attribute = open_attribute(object, name, where);
  if (!attribute) return std::nullopt;
  const std::string what = fmt::format("cannot read attribute \"{}\"", name);
  const Id type = check(H5Aget_type(attribute.get()), H5Tclose, where, what);
  const Id space = check(H5Aget_space(attribute.get()), H5Sclose, where, what);
  if (H5Tget_class(type.get()) != H5T_STRING || H5Sget_simple_extent_ndims(space.get()) > 1)
    throw InputError(fmt::format("{}: attribute \"{}\" is not a string or a 1-D list of strings", where, name));
  const auto n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get()));
  std::vector<std::string> out;
  if (H5Tis_variable_str(type.get()) > 0) {
    const Id memory = variable_string_type(where);
    std::vector<char*> pointers(n, nullptr);
    check(H5Aread(attribute.get(), memory.get(), pointers.data()), where, what);
    for (char* p : pointers) out.emplace_back(p ? p : "");
    H5Dvlen_reclaim(memory.get(), space.get(), H5P_DEFAULT, pointers.data());
  } else {
    const std::size_t width = H5Tget_size(type.get());
    const Id memory = check(H5Tcopy(H5T_C_S1), H5Tclose, where, what);
    check(H5Tset_size(memory.get(), width), where, what);
    std::vector<char> buffer(n * width);
    check(H5Aread(attribute.get(), memory.get(), buffer.data()), where, what);
    for (std::size_t i = 0; i < n; ++i) {
      std::string s(buffer.data() + i * width, width);
      s.erase(s.find_last_not_of(std::string("\0 ", 2)) + 1);  // null- or space-padded
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace pacflow::hdf5
