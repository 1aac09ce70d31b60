#include "engine/io/output_folders.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <sys/stat.h>

#include "engine/api/errors.hpp"
#include "engine/api/reserved_names.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/io/output_checks.hpp"
#include "engine/io/output_set.hpp"

namespace pacflow {

namespace fs = std::filesystem;

OutputFolders::OutputFolders(const std::vector<fs::path>& files) { hold_folders_of(files); }

void OutputFolders::hold_folders_of(const std::vector<fs::path>& files) {
  std::vector<fs::path> folders;
  for (const fs::path& file : files) folders.push_back(resolved_output(file).parent_path());
  hold(folders);
}

namespace {
// Removes the empty ones of `folders`, deepest first.
void remove_empty_folders(std::vector<fs::path>& folders) noexcept {
  std::sort(folders.begin(), folders.end(), [](const fs::path& a, const fs::path& b) {
    return std::distance(a.begin(), a.end()) > std::distance(b.begin(), b.end());
  });
  for (const fs::path& f : folders) {
    std::error_code ec;
    fs::remove(f, ec);  // only an empty folder goes
  }
  folders.clear();
}
}  // namespace

void OutputFolders::hold(const std::vector<fs::path>& folders) { hold_or_settle(folders, true); }

void OutputFolders::settle_beneath(const std::vector<fs::path>& folders) { hold_or_settle(folders, false); }

void OutputFolders::hold_or_settle(const std::vector<fs::path>& folders, bool lock) {
  std::vector<fs::path> created;  // by this call
  const std::size_t locked_before = locks_.size(), held_before = held_.size();
  try {
    std::vector<fs::path> ordered;
    for (const fs::path& given : folders) {
      const fs::path folder = fs::absolute(given);
      check_output_folder(folder);
      std::error_code ec;
      for (fs::path f = folder; !f.empty() && !fs::exists(fs::symlink_status(f, ec)); f = f.parent_path()) {
        created.push_back(f);
        if (f == f.parent_path()) break;
      }
      fs::create_directories(folder, ec);
      if (ec) throw_output_error(folder, ec.value(), "cannot create the output folder");
      const fs::path canonical = fs::canonical(folder, ec);
      ordered.push_back(ec ? folder : canonical);
    }
    std::sort(ordered.begin(), ordered.end());  // one order for every run
    for (const fs::path& folder : ordered) take(folder, lock);
  } catch (...) {
    locks_.resize(locked_before);
    held_.resize(held_before);
    remove_empty_folders(created);
    throw;
  }
  created_.insert(created_.end(), created.begin(), created.end());
}

void OutputFolders::take(const fs::path& folder, bool lock) {
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) throw_output_error(folder, errno, "cannot use the output folder");
  const std::pair identity{st.st_dev, st.st_ino};
  if (std::find(held_.begin(), held_.end(), identity) != held_.end()) return;  // the same folder by another path
  held_.push_back(identity);
  if (!lock) return settle(folder, true);
  locks_.push_back(std::make_unique<FolderLock>(
      folder, kOutputLock, "writing into this folder; wait for it to end, or write the outputs elsewhere"));
  const FolderLock& held = *locks_.back();
  if (!held.locked())
    // Without a lock another run may be writing here: its temporaries are not garbage.
    notes_.push_back(fmt::format("{}: this file system does not lock ({}): a second run into this folder would not be "
                                 "refused",
                                 folder.string(), held.why_unlocked()));
  settle(folder, held.locked());
}

void OutputFolders::settle(const fs::path& folder, bool may_remove_temporaries) {
  if (const std::size_t moved = repair_half_committed(folder))
    notes_.push_back(fmt::format("{}: settled the commit of an earlier run that was stopped while moving its outputs "
                                 "into place ({} file{})",
                                 folder.string(), moved, moved == 1 ? "" : "s"));
  if (!may_remove_temporaries) return;
  const std::vector<std::string> removed = remove_stale_temporaries(folder);
  if (!removed.empty())
    notes_.push_back(fmt::format("{}: removed {} temporary file{} of runs that were killed ({})", folder.string(),
                                 removed.size(), removed.size() == 1 ? "" : "s", fmt::join(removed, ", ")));
}

OutputFolders::~OutputFolders() {
  locks_.clear();
  remove_empty_folders(created_);
}

std::vector<fs::path> OutputFolders::folders() const {
  std::vector<fs::path> out;
  for (const auto& lock : locks_) out.push_back(lock->folder());
  return out;
}

}  // namespace pacflow
