#include "tests/support/special_files.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sched.h>
#include <stdexcept>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <utility>

namespace pacflow::testing {

namespace {
std::string needs_root(const char* what) {
  return std::string(what) + " needs root (" + std::strerror(errno) + "); run the tests as root to include this case";
}
}  // namespace

std::string make_char_device(const std::filesystem::path& path, unsigned major, unsigned minor) {
  if (::mknod(path.c_str(), S_IFCHR | 0666, makedev(major, minor)) == 0) return "";
  return needs_root("making a device node");
}

void make_fifo(const std::filesystem::path& path) {
  if (::mkfifo(path.c_str(), 0644) != 0)
    throw std::runtime_error("mkfifo " + path.string() + ": " + std::strerror(errno));
}

namespace {
// Mounts made by a test should vanish with it, even when it is killed (a ctest timeout): the first
// mount moves this process into a mount namespace of its own, whose mounts nobody else sees and
// which ends with the process (and the children it starts, which inherit it). Possible only while
// the process has one thread; otherwise the mounts go to the machine's namespace, unmounted by
// ~Mount as before.
void private_mounts_once() {
  static const bool entered = [] {
    return ::unshare(CLONE_NEWNS) == 0 && ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
  }();
  (void)entered;
}
}  // namespace

std::optional<Mount> Mount::tmpfs(const std::filesystem::path& dir, std::size_t bytes, std::string& why_not) {
  private_mounts_once();
  std::filesystem::create_directories(dir);
  const std::string options = "size=" + std::to_string(bytes);
  if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) != 0) {
    why_not = needs_root("mounting a tmpfs");
    return std::nullopt;
  }
  return Mount(dir);
}

std::optional<Mount> Mount::read_only(const std::filesystem::path& dir, std::string& why_not) {
  private_mounts_once();
  if (::mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    why_not = needs_root("a bind mount");
    return std::nullopt;
  }
  Mount held(dir);  // from here the destructor unmounts, whatever happens next
  if (::mount(nullptr, dir.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0) {
    why_not = needs_root("remounting read-only");
    return std::nullopt;
  }
  return held;
}

Mount::Mount(Mount&& other) noexcept : dir_(std::exchange(other.dir_, {})) {}

Mount::~Mount() {
  if (!dir_.empty()) ::umount2(dir_.c_str(), MNT_DETACH);
}

void write_sparse_npy(const std::filesystem::path& path, const std::string& shape, std::uintmax_t values) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  header.resize(117, ' ');
  header += '\n';
  std::ofstream(path, std::ios::binary) << std::string("\x93NUMPY\x01\x00", 8) << static_cast<char>(header.size())
                                        << '\0' << header;
  std::filesystem::resize_file(path, 128 + values * 4);
}

}  // namespace pacflow::testing
