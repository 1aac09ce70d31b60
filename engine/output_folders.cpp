#include "engine/output_folders.hpp"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <set>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/atomic_file.hpp"
#include "engine/errors.hpp"
#include "engine/input_file.hpp"
#include "engine/output_checks.hpp"
#include "engine/output_set.hpp"

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

}  // namespace

OutputFolders::Lock::Lock(fs::path folder) : folder_(std::move(folder)) {
  const fs::path path = folder_ / kOutputLock;
  for (int attempt = 0; attempt < 16; ++attempt) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd_ < 0)
      throw InputError(fmt::format("{}: cannot write into the output folder: {}", folder_.string(),
                                   file_error_reason(errno)));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      char holder[512] = {};
      const ssize_t got = ::pread(fd_, holder, sizeof(holder) - 1, 0);
      std::string who(holder, got > 0 ? static_cast<std::size_t>(got) : 0);
      while (!who.empty() && (who.back() == '\n' || who.back() == ' ')) who.pop_back();
      ::close(fd_);
      fd_ = -1;
      throw InputError(fmt::format("{}: another pacflow run{} is writing into this folder; wait for it to end, or "
                                   "write the outputs elsewhere",
                                   folder_.string(), who.empty() ? "" : " (" + who + ")"));
    }
    // The holder before us may have removed the file (and another run made a new one) between our
    // open and our flock: then the lock we hold is on a file nobody else will see.
    struct stat held {}, now {};
    if (::fstat(fd_, &held) == 0 && ::stat(path.c_str(), &now) == 0 && held.st_ino == now.st_ino &&
        held.st_dev == now.st_dev) {
      const std::string who = this_process() + "\n";
      if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, who.data(), who.size(), 0) != static_cast<ssize_t>(who.size()))
        throw_output_error(path, errno, "cannot write the lock file");
      return;
    }
    ::close(fd_);
    fd_ = -1;
  }
  throw InputError(fmt::format("{}: cannot take the output folder's lock (it keeps being replaced)", folder_.string()));
}

OutputFolders::Lock::~Lock() {
  if (fd_ < 0) return;
  ::unlink((folder_ / kOutputLock).c_str());  // while still held: see the inode check above
  ::close(fd_);
}

OutputFolders::OutputFolders(const std::vector<fs::path>& files) {
  std::set<fs::path> folders;
  try {
    for (const fs::path& file : files) {
      const fs::path folder = resolved_output(file).parent_path();
      std::vector<fs::path> missing;  // deepest first
      for (fs::path f = folder; !f.empty() && !fs::exists(f); f = f.parent_path()) {
        missing.push_back(f);
        if (f == f.parent_path()) break;
      }
      std::error_code ec;
      fs::create_directories(folder, ec);
      if (ec)
        throw InputError(fmt::format("{}: cannot create the output folder: {}", folder.string(),
                                     file_error_reason(ec.value())));
      created_.insert(created_.end(), missing.begin(), missing.end());
      folders.insert(fs::canonical(folder));
    }
    for (const fs::path& folder : folders) take(folder);
  } catch (...) {
    locks_.clear();
    remove_created();
    throw;
  }
}

void OutputFolders::remove_created() noexcept {
  // Deepest first, and only folders left empty.
  std::sort(created_.begin(), created_.end(), [](const fs::path& a, const fs::path& b) {
    return std::distance(a.begin(), a.end()) > std::distance(b.begin(), b.end());
  });
  for (const fs::path& f : created_) {
    std::error_code ec;
    fs::remove(f, ec);
  }
  created_.clear();
}

void OutputFolders::take(const fs::path& folder) {
  locks_.push_back(std::make_unique<Lock>(folder));
  if (const std::size_t moved = repair_half_committed(folder))
    notes_.push_back(fmt::format("{}: completed the commit of an earlier run that was stopped while moving its outputs "
                                 "into place ({} file{})",
                                 folder.string(), moved, moved == 1 ? "" : "s"));
  const std::vector<std::string> removed = remove_stale_temporaries(folder);
  if (!removed.empty())
    notes_.push_back(fmt::format("{}: removed {} temporary file{} of runs that were killed ({})", folder.string(),
                                 removed.size(), removed.size() == 1 ? "" : "s", fmt::join(removed, ", ")));
}

OutputFolders::~OutputFolders() {
  locks_.clear();
  remove_created();
}

std::vector<fs::path> OutputFolders::folders() const {
  std::vector<fs::path> out;
  for (const auto& lock : locks_) out.push_back(lock->folder());
  return out;
}

}  // namespace pacflow
