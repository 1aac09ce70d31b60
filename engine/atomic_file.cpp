#include "engine/atomic_file.hpp"

#include <fmt/format.h>
#include <fstream>
#include <random>
#include <stdexcept>
#include <unistd.h>

namespace pacflow {

std::filesystem::path temp_path_for(const std::filesystem::path& path) {
  // pid + a random tag: unique across processes and across writers within one process.
  auto name = fmt::format(".{}.tmp-{}-{:08x}", path.filename().string(), static_cast<long>(::getpid()),
                          std::random_device{}());
  return path.parent_path() / name;
}

void write_file_atomically(const std::filesystem::path& path, const std::string& content) {
  const auto temp = temp_path_for(path);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(fmt::format("{}: cannot create output file", temp.string()));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      std::error_code ec;
      std::filesystem::remove(temp, ec);
      throw std::runtime_error(fmt::format("{}: write failed (disk full?)", temp.string()));
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    throw std::runtime_error(fmt::format("{}: cannot move the finished file into place", path.string()));
  }
}

}  // namespace pacflow
