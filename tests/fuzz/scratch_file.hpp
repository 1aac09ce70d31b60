#pragma once
// A file holding one fuzz input, for readers that take a path; removed when it goes out of scope.
// Its name is unique per process, so parallel fuzzing jobs (-jobs=N) do not collide.
#include <filesystem>

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

}  // namespace pacflow::fuzz
