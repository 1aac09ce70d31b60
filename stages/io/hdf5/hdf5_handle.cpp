#include "stages/io/hdf5/hdf5_handle.hpp"

#include <fmt/format.h>
#include <utility>

#include "engine/api/errors.hpp"
#include "engine/io/input_file.hpp"

namespace pacflow::hdf5 {

Id& Id::operator=(Id&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = std::exchange(other.id_, H5I_INVALID_HID);
    close_ = other.close_;
  }
  return *this;
}

bool Id::reset() noexcept {
  if (id_ < 0) return true;
  const herr_t status = close_(std::exchange(id_, H5I_INVALID_HID));
  return status >= 0;
}

QuietErrors::QuietErrors() {
  H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

QuietErrors::~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

namespace {

struct ErrorWalk {
  std::string outer;  // what the API call says it failed to do
  std::string inner;  // the innermost reason
};

herr_t collect(unsigned n, const H5E_error2_t* err, void* data) {
  auto* walk = static_cast<ErrorWalk*>(data);
  std::string text = err->desc ? err->desc : "";
  if (text.empty()) {
    char buf[256] = {};
    if (H5Eget_msg(err->min_num, nullptr, buf, sizeof buf) > 0) text = buf;
  }
  if (n == 0) walk->outer = text;
  walk->inner = text;
  return 0;
}

}  // namespace

std::string take_error_text() {
  ErrorWalk walk;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect, &walk);
  H5Eclear2(H5E_DEFAULT);
  if (walk.inner.empty() || walk.inner == walk.outer) return walk.outer;
  return walk.outer.empty() ? walk.inner : walk.outer + ": " + walk.inner;
}

void fail(const std::string& where, const std::string& what) {
  const std::string reason = take_error_text();
  throw InputError(reason.empty() ? fmt::format("{}: {}", where, what)
                                  : fmt::format("{}: {} ({})", where, what, reason));
}

Id check(hid_t id, Id::Close close, const std::string& where, const std::string& what) {
  if (id < 0) fail(where, what);
  return Id(id, close);
}

void check(herr_t status, const std::string& where, const std::string& what) {
  if (status < 0) fail(where, what);
}

Id open_file_readonly(const std::filesystem::path& path) {
  require_regular_file(path);  // libhdf5 opens by name: a FIFO would block it; names the system's reason
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  if (is_hdf5 == 0) {
    H5Eclear2(H5E_DEFAULT);
    throw InputError(fmt::format("{}: not an HDF5 file (no HDF5 signature found)", path.string()));
  }
  if (is_hdf5 < 0) fail(path.string(), "cannot read");
  return check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, path.string(),
               "cannot open as an HDF5 file");
}

Id untimed_creation(hid_t cls, const std::string& where) {
  Id list = check(H5Pcreate(cls), H5Pclose, where, "cannot make a creation property list");
  check(H5Pset_obj_track_times(list.get(), false), where, "cannot turn off time stamps");
  return list;
}

Id create_file(const std::filesystem::path& path) {
  const Id creation = untimed_creation(H5P_FILE_CREATE, path.string());
  const Id access = check(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, path.string(), "cannot set up file access");
  check(H5Pset_libver_bounds(access.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST), path.string(),
        "cannot select the file format");
  check(H5Pset_fclose_degree(access.get(), H5F_CLOSE_STRONG), path.string(), "cannot set the close degree");
  return check(H5Fcreate(path.c_str(), H5F_ACC_EXCL, creation.get(), access.get()), H5Fclose, path.string(),
               "cannot create the output file");
}

namespace {
herr_t add_dataset(hid_t group, const char* name, const H5L_info_t* info, void* data) {
  if (info->type != H5L_TYPE_HARD) return 0;
  const hid_t object = H5Oopen(group, name, H5P_DEFAULT);
  if (object < 0) return 0;
  if (H5Iget_type(object) == H5I_DATASET) static_cast<std::vector<std::string>*>(data)->push_back(std::string("/") + name);
  H5Oclose(object);
  return 0;
}
}  // namespace

std::vector<std::string> dataset_paths(hid_t file) {
  std::vector<std::string> paths;
  H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, add_dataset, &paths);
  H5Eclear2(H5E_DEFAULT);
  return paths;
}

}  // namespace pacflow::hdf5
