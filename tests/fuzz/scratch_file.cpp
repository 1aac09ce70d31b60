#include "tests/fuzz/scratch_file.hpp"

#include <fmt/format.h>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace pacflow::fuzz {

ScratchFile::ScratchFile(Input data, const std::string& extension)
    : path_(std::filesystem::temp_directory_path() /
            fmt::format("pacflow_fuzz_{}{}", static_cast<long>(::getpid()), extension)) {
  std::ofstream out(path_, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!out) throw std::runtime_error("cannot write " + path_.string());
}

ScratchFile::~ScratchFile() {
  std::error_code ec;
  std::filesystem::remove(path_, ec);
}

ScratchFolder::ScratchFolder()
    : path_(std::filesystem::temp_directory_path() / fmt::format("pacflow_fuzz_{}.d", static_cast<long>(::getpid()))) {
  std::filesystem::remove_all(path_);
  std::filesystem::create_directory(path_);
}

ScratchFolder::~ScratchFolder() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::filesystem::path ScratchFolder::write(const std::string& name, std::string_view bytes) const {
  const auto path = path_ / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
  return path;
}

}  // namespace pacflow::fuzz
