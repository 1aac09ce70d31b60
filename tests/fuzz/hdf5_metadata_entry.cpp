// The hdf5 source's own handling of what a file declares: the dataset's rank, shape and type, the
// layout= it is read with, the sample rate and channel-name attributes in every type and shape
// HDF5 allows, and the samples. The input is a recipe (below) for a well-formed HDF5 file, so the
// fuzzer explores our code rather than libhdf5's parser of damaged files (libhdf5 1.10 is not
// hardened against those; see docs/reliability.md).
//
// Recipe, byte by byte (missing bytes read as 0):
//   rank (1-4), then each dimension (0-15); the dataset's type (one of kTypes); the dataset's name
//   (one of kNames); layout= (up to 4 letters of "ECTX"); fs= given or not, and its value; the fs
//   attribute: absent, on the dataset or the root, as a scalar or a 1-D array of a number type or as a
//   string; the channel-name attribute: absent, a number, or 0-7 fixed or variable-length strings;
//   nan_policy; then the samples, 4 bytes each.
#include <array>
#include <cstring>
#include <fmt/format.h>
#include <hdf5.h>
#include <vector>

#include "engine/api/errors.hpp"
#include "stages/io/hdf5/hdf5_handle.hpp"
#include "stages/io/hdf5/hdf5_source.hpp"
#include "tests/fuzz/entry_points.hpp"
#include "tests/fuzz/scratch_file.hpp"

namespace pacflow::fuzz {

namespace {

// Reads the recipe front to back; past the end every read gives zeros.
class Recipe {
 public:
  explicit Recipe(Input data) : data_(data) {}
  std::uint8_t byte() { return at_ < data_.size() ? data_[at_++] : 0; }
  template <typename T>
  T value() {
    // Byte by byte into the value's own storage (a std::array copy trips g++ 12's -Wstringop-overflow).
    T v{};
    auto* out = reinterpret_cast<unsigned char*>(&v);
    for (std::size_t i = 0; i < sizeof(T); ++i) out[i] = byte();
    return v;
  }
  std::string letters(const char* alphabet, std::size_t most) {
    const std::size_t n = byte() % (most + 1);
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(alphabet[byte() % std::strlen(alphabet)]);
    return out;
  }

 private:
  Input data_;
  std::size_t at_ = 0;
};

const std::array<hid_t, 10>& number_types() {
  static const std::array<hid_t, 10> types = {H5T_STD_I8LE,  H5T_STD_U8LE,  H5T_STD_I16BE, H5T_STD_I16LE, H5T_STD_I32LE,
                                              H5T_STD_U64LE, H5T_STD_I64BE, H5T_IEEE_F32LE, H5T_IEEE_F32BE, H5T_IEEE_F64LE};
  return types;
}

constexpr std::array<const char*, 4> kNames = {"/eeg", "/group/lfp", "/x y", "/eeg/"};

hdf5::Id string_type(bool variable, std::size_t length) {
  hdf5::Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), variable ? H5T_VARIABLE : std::max<std::size_t>(length, 1));
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  return type;
}

// An attribute of `count` values (a scalar when count is 0) of a number type, from the recipe.
void number_attribute(hid_t object, const char* name, Recipe& recipe, hsize_t count) {
  const hid_t type = number_types()[recipe.byte() % number_types().size()];
  const hdf5::Id space(count ? H5Screate_simple(1, &count, nullptr) : H5Screate(H5S_SCALAR), H5Sclose);
  const hdf5::Id attribute(H5Acreate2(object, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  std::vector<double> values(std::max<hsize_t>(count, 1));
  for (auto& v : values) v = recipe.byte() % 3 == 0 ? recipe.value<double>() : static_cast<double>(recipe.byte());
  H5Awrite(attribute.get(), H5T_NATIVE_DOUBLE, values.data());  // HDF5 converts (and clips) to the file type
}

void string_attribute(hid_t object, const char* name, Recipe& recipe) {
  const bool variable = recipe.byte() % 2 == 0;
  const hsize_t count = recipe.byte() % 8;
  std::vector<std::string> texts;
  for (hsize_t i = 0; i < count; ++i) texts.push_back(recipe.letters("Cz3 \xc3\xa9", 6));
  const hdf5::Id space(count ? H5Screate_simple(1, &count, nullptr) : H5Screate(H5S_SCALAR), H5Sclose);
  std::size_t longest = 1;
  for (const auto& t : texts) longest = std::max(longest, t.size());
  const hdf5::Id type = string_type(variable, longest);
  const hdf5::Id attribute(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (variable) {
    std::vector<const char*> pointers;
    for (const auto& t : texts) pointers.push_back(t.c_str());
    if (pointers.empty()) pointers.push_back("");
    H5Awrite(attribute.get(), type.get(), pointers.data());
  } else {
    std::string packed;
    for (const auto& t : texts) packed += t + std::string(longest - t.size(), '\0');
    if (packed.empty()) packed.assign(longest, '\0');
    H5Awrite(attribute.get(), type.get(), packed.data());
  }
}

}  // namespace

Outcome hdf5_metadata(Input data) {
  Recipe recipe(data);
  const int rank = 1 + recipe.byte() % 4;
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  hsize_t elements = 1;
  for (auto& d : dims) elements *= (d = recipe.byte() % 16);
  const hid_t type = number_types()[recipe.byte() % number_types().size()];
  const std::string dataset = kNames[recipe.byte() % kNames.size()];
  const std::string layout = recipe.letters("ECTX", 4);
  const bool fs_given = recipe.byte() % 2 == 1;
  const double fs = recipe.value<double>();
  const std::uint8_t fs_attribute = recipe.byte() % 6;  // absent, dataset or root × scalar, array, string
  const std::uint8_t labels = recipe.byte() % 3;        // absent, a number, strings
  const char* policy = std::array{"reject", "zero", "skip"}[recipe.byte() % 3];
  std::vector<float> samples(elements);
  for (auto& v : samples) v = recipe.value<float>();

  const ScratchFile file(Input{}, ".h5");
  {
    const hdf5::QuietErrors quiet;
    std::filesystem::remove(file.path());
    const hdf5::Id h5 = hdf5::create_file(file.path());
    const hdf5::Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    const hdf5::Id space(H5Screate_simple(rank, dims.data(), nullptr), H5Sclose);
    const hdf5::Id set(H5Dcreate2(h5.get(), dataset.c_str(), type, space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
                       H5Dclose);
    if (!set) return {false, "the recipe names no dataset HDF5 can create"};
    if (elements) H5Dwrite(set.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, samples.data());
    if (fs_attribute) {
      const hid_t on = fs_attribute <= 3 ? set.get() : h5.get();
      if (fs_attribute % 3 == 0)
        string_attribute(on, "fs", recipe);
      else
        number_attribute(on, "fs", recipe, fs_attribute % 3 == 1 ? 0 : recipe.byte() % 3);
    }
    if (labels == 1) number_attribute(set.get(), "channel_names", recipe, 1);
    if (labels == 2) string_attribute(set.get(), "channel_names", recipe);
  }

  json params = {{"path", file.path().string()}, {"dataset", dataset}, {"layout", layout}, {"nan_policy", policy}};
  if (fs_given) params["fs"] = fs;
  try {
    const auto source = make_element<stages::Hdf5Source>(params);
    const StreamInfo stream = source->open({});
    std::vector<float> out(static_cast<std::size_t>(stream.series_count() * stream.series_length));
    source->read(0, stream.series_count(), out.data());
    return {true, ""};
  } catch (const InputError& e) {
    return {false, e.what()};
  }
}

}  // namespace pacflow::fuzz
