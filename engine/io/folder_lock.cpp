#include "engine/io/folder_lock.hpp"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <sys/file.h>
#include <sys/stat.h>

#include "engine/io/atomic_file.hpp"
#include "engine/api/errors.hpp"
#include "engine/io/input_file.hpp"

namespace pacflow {

namespace fs = std::filesystem;

namespace {

// "pid 1234: pipeline_cli run x.pipe": who holds a lock, as its lock file says.
std::string this_process() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string command((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::replace(command.begin(), command.end(), '\0', ' ');
  while (!command.empty() && command.back() == ' ') command.pop_back();
  return fmt::format("pid {}{}", static_cast<long>(::getpid()), command.empty() ? "" : ": " + command);
}

// What the lock file of a holder says (its first line), or "".
std::string holder_of(int fd) {
  char text[512] = {};
  const ssize_t got = ::pread(fd, text, sizeof(text) - 1, 0);
  std::string who(text, got > 0 ? static_cast<std::size_t>(got) : 0);
  who = who.substr(0, who.find('\n'));
  return who;
}

}  // namespace

FolderLock::FolderLock(fs::path folder, std::string_view file_name, std::string_view busy)
    : folder_(std::move(folder)), path_(folder_ / file_name) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    // 0666 (less the umask): a file a killed run left behind can be taken over by the next user.
    fd_ = UniqueFd(::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666));
    bool writable = true;
    if (!fd_ && errno == EACCES) {  // another user's leftover: a read-only descriptor locks as well
      fd_ = UniqueFd(::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
      writable = false;
    }
    if (!fd_) throw_output_error(folder_, errno, "cannot write into the folder");
    if (::flock(fd_.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK) {  // the file system has no locks: hold the folder without one
        why_unlocked_ = file_error_reason(errno);
        return;
      }
      const std::string who = holder_of(fd_.get());
      throw InputError(fmt::format("{}: another pacflow run{} is {}", folder_.string(), who.empty() ? "" : " (" + who + ")",
                                   busy));
    }
    // The holder before us may have removed the file (and another run made a new one) between our
    // open and our flock: then the lock we hold is on a file nobody else will see.
    struct stat held {}, now {};
    if (::fstat(fd_.get(), &held) == 0 && ::stat(path_.c_str(), &now) == 0 && held.st_ino == now.st_ino &&
        held.st_dev == now.st_dev) {
      if (!writable) return;
      const std::string who = this_process() + "\n";
      if (::ftruncate(fd_.get(), 0) != 0) throw_output_error(path_, errno, "cannot write the lock file");
      const ssize_t wrote = ::pwrite(fd_.get(), who.data(), who.size(), 0);
      if (wrote != static_cast<ssize_t>(who.size())) throw_output_error(path_, wrote < 0 ? errno : ENOSPC, "cannot write the lock file");
      return;
    }
    fd_.reset();
  }
  throw InputError(fmt::format("{}: cannot take the folder's lock (its lock file keeps being replaced)", folder_.string()));
}

FolderLock::~FolderLock() {
  if (!fd_) return;
  ::unlink(path_.c_str());  // while still held: see the inode check above
}

}  // namespace pacflow
