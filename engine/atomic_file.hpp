#pragma once
// Atomic output: write beside the target under a unique hidden name, then rename into place, so a
// reader sees the complete file or none.
#include <filesystem>
#include <string>

namespace pacflow {

// Writes a whole file atomically. Throws std::runtime_error naming the path (and the system's
// reason, e.g. "No space left on device") on failure and leaves no temporary file behind.
void write_file_atomically(const std::filesystem::path& path, const std::string& content);

// A file written completely under a temporary name beside `target`, moved into place by commit():
// a sink that writes several files writes them all first and commits them together, so a failure
// (a full disk) leaves every target as it was. Destroyed uncommitted, it removes the temporary.
class StagedFile {
 public:
  // Writes `content`; throws std::runtime_error naming the file and the reason, leaving nothing.
  StagedFile(std::filesystem::path target, const std::string& content);
  ~StagedFile();
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path temp_;
};

// A unique temporary name beside `path` (same directory, so the rename stays on one file system).
std::filesystem::path temp_path_for(const std::filesystem::path& path);

// Moves a finished file to `to`, replacing it atomically: a rename, or, when `from` lies on another
// file system, a copy to a temporary beside `to` renamed into place (then `from` is removed).
void move_file_into_place(const std::filesystem::path& from, const std::filesystem::path& to);

// "write failed: No space left on device" from errno, for messages about the file just written.
std::string system_reason(int error_number);

}  // namespace pacflow
