#pragma once
// Small RAII layer over the HDF5 C API: identifiers that close themselves, error stacks turned into
// one InputError naming the file, and the open/create calls the hdf5 source and sink share.
#include <filesystem>
#include <string>
#include <vector>

#include <hdf5.h>

namespace pacflow::hdf5 {

// An HDF5 identifier (file, group, dataset, dataspace, datatype, attribute, property list) that is
// closed with the matching H5?close when it goes out of scope.
class Id {
 public:
  using Close = herr_t (*)(hid_t);
  Id() = default;
  Id(hid_t id, Close close) : id_(id), close_(close) {}
  ~Id() { reset(); }
  Id(Id&& other) noexcept : id_(other.id_), close_(other.close_) { other.id_ = H5I_INVALID_HID; }
  Id& operator=(Id&& other) noexcept;
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;

  hid_t get() const { return id_; }
  explicit operator bool() const { return id_ >= 0; }
  // Closes now; returns false when HDF5 reported a failure (e.g. a write it had buffered).
  bool reset() noexcept;

 private:
  hid_t id_ = H5I_INVALID_HID;
  Close close_ = nullptr;
};

// While in scope, HDF5 prints no error stacks on this thread (our messages say what failed); the
// previous setting comes back afterwards. HDF5 keeps this setting per thread.
class QuietErrors {
 public:
  QuietErrors();
  ~QuietErrors();
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

// What went wrong, from this thread's HDF5 error stack ("unable to open file: file signature not
// found"); clears the stack. "" when it is empty.
std::string take_error_text();

// Throws InputError "WHERE: WHAT: <HDF5's reason>" (the reason is left out when HDF5 gave none).
[[noreturn]] void fail(const std::string& where, const std::string& what);
// `id` when valid, else fail(where, what).
Id check(hid_t id, Id::Close close, const std::string& where, const std::string& what);
void check(herr_t status, const std::string& where, const std::string& what);

// Opens an existing file read-only; clear errors for a missing file or one that is not HDF5.
Id open_file_readonly(const std::filesystem::path& path);
// Creates a new file (failing if it exists) in the HDF5 1.8+ format, whose dense attribute storage
// holds attributes above 64 KiB; H5Fclose on it closes every object still open in it. Its root
// group, like every group and dataset made with untimed_creation(), records no creation or
// modification time: the same results give the same bytes whenever they are written.
Id create_file(const std::filesystem::path& path);
// A creation property list of class `cls` (H5P_DATASET_CREATE, H5P_GROUP_CREATE, H5P_FILE_CREATE)
// whose objects record no times.
Id untimed_creation(hid_t cls, const std::string& where);

// Every dataset in the file as an absolute path ("/eeg", "/run1/lfp"), for messages.
std::vector<std::string> dataset_paths(hid_t file);

}  // namespace pacflow::hdf5
