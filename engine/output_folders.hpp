#pragma once
// The folders a run writes into, held for the whole run.
//
// Each folder is created if missing and locked: an exclusive flock on FOLDER/.pacflow.lock, a file
// holding the run's process id and command line. A second run into a folder in use is refused
// (exit 2) naming that process, so two runs can never mix their files in one folder. Once a folder
// is held, a commit an earlier run left half done there is completed (repair_half_committed) and
// the temporaries of processes that are gone (a SIGKILL leaves them) are removed; both are told in
// notes(). The lock file is removed when the run ends, and so are the folders the run created when
// it fails and they are empty: a failed run leaves nothing behind.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace pacflow {

// The lock file's name in each output folder.
inline constexpr const char* kOutputLock = ".pacflow.lock";

class OutputFolders {
 public:
  // `files`: every output file of the run (their folders are held). Throws InputError (exit 2) when
  // a folder cannot be created or written into, when another run holds one, or when a half-done
  // commit found there cannot be completed.
  explicit OutputFolders(const std::vector<std::filesystem::path>& files);
  ~OutputFolders();
  OutputFolders(const OutputFolders&) = delete;
  OutputFolders& operator=(const OutputFolders&) = delete;

  // The run succeeded: the folders it created stay.
  void keep_created() { created_.clear(); }
  // What was repaired or cleaned up when the folders were taken, for the run's warnings.
  const std::vector<std::string>& notes() const { return notes_; }
  // The folders held, canonical, in the order they were locked.
  std::vector<std::filesystem::path> folders() const;

 private:
  class Lock {
   public:
    explicit Lock(std::filesystem::path folder);  // throws InputError when held by another process
    ~Lock();
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;
    const std::filesystem::path& folder() const { return folder_; }

   private:
    std::filesystem::path folder_;
    int fd_ = -1;
  };
  void take(const std::filesystem::path& folder);
  void remove_created() noexcept;

  std::vector<std::filesystem::path> created_;  // folders this run created
  std::vector<std::unique_ptr<Lock>> locks_;
  std::vector<std::string> notes_;
};

}  // namespace pacflow
