#pragma once
// Atomic output: write beside the target under a unique hidden name, then rename into place, so a
// reader sees the complete file or none.
#include <filesystem>
#include <string>

namespace pacflow {

// Writes a whole file atomically. Throws std::runtime_error naming the path on failure and leaves
// no temporary file behind.
void write_file_atomically(const std::filesystem::path& path, const std::string& content);

// A unique temporary name beside `path` (same directory, so the rename stays on one file system).
std::filesystem::path temp_path_for(const std::filesystem::path& path);

}  // namespace pacflow
