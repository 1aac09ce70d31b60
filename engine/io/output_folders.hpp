#pragma once
// The folders a run writes into, held for the whole run.
//
// Each folder is created if missing and locked (engine/io/folder_lock.hpp: FOLDER/.pacflow.lock names
// the holder), so a second run into a folder in use is refused (exit 2) naming that process, and two
// runs can never mix their files in one folder. Once a folder is held, a commit an earlier run left
// half done there is settled (repair_half_committed: completed, or undone if it had not begun to
// move files) and the temporaries of processes that are gone (a SIGKILL leaves them) are removed;
// both are told in notes(). The folders the run created are removed again when it fails and they
// are empty: a failed run leaves nothing behind. A folder reached twice (through a link, a bind
// mount) is held once.
#include <filesystem>
#include <memory>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

#include "engine/io/folder_lock.hpp"

namespace pacflow {

class OutputFolders {
 public:
  OutputFolders() = default;
  // Holds the folders of `files` (hold_folders_of).
  explicit OutputFolders(const std::vector<std::filesystem::path>& files);
  ~OutputFolders();
  OutputFolders(const OutputFolders&) = delete;
  OutputFolders& operator=(const OutputFolders&) = delete;

  // Creates and holds each of `folders` not held yet. Throws InputError (exit 2) when one is not a
  // folder or cannot be created or written into, when another run holds one, or when a half-done
  // commit found there cannot be settled; the folders this call created are removed again then.
  void hold(const std::vector<std::filesystem::path>& folders);
  // Creates each of `folders` and settles what killed runs left there as hold() does, without a lock
  // of its own: for folders beneath one this object holds, which every run into them holds too (a
  // dataset's recordings' folders beneath its output folder: one lock, not one per recording).
  void settle_beneath(const std::vector<std::filesystem::path>& folders);
  // Holds the folder of each of `files` (after following a symbolic link at the file).
  void hold_folders_of(const std::vector<std::filesystem::path>& files);

  // The run succeeded: the folders it created stay.
  void keep_created() { created_.clear(); }
  // What was repaired or cleaned up when the folders were taken, for the run's warnings.
  const std::vector<std::string>& notes() const { return notes_; }
  // The folders held, canonical, in the order they were taken.
  std::vector<std::filesystem::path> folders() const;

 private:
  void take(const std::filesystem::path& folder, bool lock);
  void hold_or_settle(const std::vector<std::filesystem::path>& folders, bool lock);
  void settle(const std::filesystem::path& folder, bool may_remove_temporaries);

  std::vector<std::filesystem::path> created_;  // folders this run created
  std::vector<std::unique_ptr<FolderLock>> locks_;
  std::vector<std::pair<dev_t, ino_t>> held_;  // the folders' identities, to hold each once
  std::vector<std::string> notes_;
};

}  // namespace pacflow
