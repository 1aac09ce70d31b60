#pragma once
// A file holding one fuzz input, for readers that take a path; removed when it goes out of scope.
// Its name is unique per process, so parallel fuzzing jobs (-jobs=N) do not collide. A folder of
// such files for readers that open files by the names another file gives (a BrainVision header).
#include <filesystem>
#include <string>
#include <string_view>

#include "tests/fuzz/entry_points.hpp"

namespace pacflow::fuzz {

class ScratchFile {
 public:
  ScratchFile(Input data, const std::string& extension);
  ~ScratchFile();
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

class ScratchFolder {
 public:
  ScratchFolder();
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // Writes `bytes` as the file `name` in the folder; returns its path.
  std::filesystem::path write(const std::string& name, std::string_view bytes) const;

 private:
  std::filesystem::path path_;
};

}  // namespace pacflow::fuzz
