#pragma once
// A folder held by one pacflow run at a time: an exclusive flock on a lock file in it, holding the
// holder's process id and command line so a refused run can name it.
//
// The lock file is removed when the holder lets go, while still holding the lock; a run that opened
// the old file just before checks, once it holds the lock, that the file is still the one at that
// name, and starts again otherwise. A SIGKILL leaves the file behind, unlocked (the kernel drops the
// lock with the process): the next run takes it over. Where the file system supports no locks (some
// NFS or Lustre mounts), the folder is held without one and `locked()` says so.
#include <filesystem>
#include <string>
#include <string_view>

#include "engine/io/unique_fd.hpp"

namespace pacflow {

class FolderLock {
 public:
  // Locks `folder`/`file_name`. Throws InputError "FOLDER: another pacflow run (pid N: COMMAND) is
  // BUSY" when another process holds it (`busy` says what that run is doing, e.g. "writing into this
  // folder; wait for it to end, or write the outputs elsewhere"), and an output error naming the
  // folder when the lock file cannot be made there (a read-only folder).
  FolderLock(std::filesystem::path folder, std::string_view file_name, std::string_view busy);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

  const std::filesystem::path& folder() const { return folder_; }
  // False where the file system refused to lock (why_unlocked() says what it said).
  bool locked() const { return why_unlocked_.empty(); }
  const std::string& why_unlocked() const { return why_unlocked_; }

 private:
  std::filesystem::path folder_;
  std::filesystem::path path_;
  UniqueFd fd_;
  std::string why_unlocked_;
};

}  // namespace pacflow
