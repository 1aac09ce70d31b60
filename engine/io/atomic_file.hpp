#pragma once
// Atomic output: write beside the target under a unique hidden name, then rename into place, so a
// reader sees the complete file or none. Runs write their outputs through OutputSet
// (engine/io/output_set.hpp), which moves all of a run's files together.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace pacflow {

// Writes a whole file atomically (a checkpoint record). Throws, naming the path and the system's
// reason (e.g. "No space left on device"), on failure and leaves no temporary file behind.
void write_file_atomically(const std::filesystem::path& path, const std::string& content);

// Writes `content` to `path` (created, or truncated), in full; on failure removes it and throws via
// throw_output_error naming `shown` (the file the user knows, e.g. the target of a temporary).
void write_whole_file(const std::filesystem::path& path, std::string_view content, const std::filesystem::path& shown);

// A unique temporary name beside `path` (same directory, so the rename stays on one file system):
// ".NAME.pacflow-tmp-PID-XXXXXXXX". OutputFolders removes such files left by a process that is gone.
std::filesystem::path temp_path_for(const std::filesystem::path& path);

// The process that wrote a temporary named by temp_path_for, or 0 when `name` is not such a name.
long temp_file_writer(const std::string& name);

// Removes the temporaries in `folder` whose writer process no longer exists (a SIGKILL leaves them);
// returns their names. Call it while holding the folder's lock.
std::vector<std::string> remove_stale_temporaries(const std::filesystem::path& folder);

// "No space left on device" from errno, for messages about the file just written.
std::string system_reason(int error_number);

// The error for an output that cannot be written: an InputError (exit 2) when the place cannot take
// a file at all (permission denied, a read-only file system, a missing folder), a runtime_error
// (exit 1) when writing failed on the way (a full disk, a file-size limit, an I/O error). The message
// is "PATH: ACTION: reason".
[[noreturn]] void throw_output_error(const std::filesystem::path& path, int error_number, std::string_view action);

}  // namespace pacflow
