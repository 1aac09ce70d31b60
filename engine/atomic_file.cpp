#include "engine/atomic_file.hpp"

#include <cerrno>
#include <fmt/format.h>
#include <fstream>
#include <random>
#include <stdexcept>
#include <system_error>
#include <unistd.h>

namespace pacflow {

namespace fs = std::filesystem;

std::filesystem::path temp_path_for(const std::filesystem::path& path) {
  // pid + a random tag: unique across processes and across writers within one process.
  auto name = fmt::format(".{}.tmp-{}-{:08x}", path.filename().string(), static_cast<long>(::getpid()),
                          std::random_device{}());
  return path.parent_path() / name;
}

std::string system_reason(int error_number) {
  return error_number ? std::generic_category().message(error_number) : "unknown reason";
}

StagedFile::StagedFile(fs::path target, const std::string& content)
    : target_(std::move(target)), temp_(temp_path_for(target_)) {
  std::ofstream out(temp_, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(fmt::format("{}: cannot create output file: {}", temp_.string(), system_reason(errno)));
  errno = 0;
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) {
    const int error = errno;
    std::error_code ec;
    fs::remove(temp_, ec);
    throw std::runtime_error(fmt::format("{}: write failed: {}", target_.string(), system_reason(error)));
  }
}

StagedFile::~StagedFile() {
  if (temp_.empty()) return;
  std::error_code ec;
  fs::remove(temp_, ec);
}

void StagedFile::commit() {
  move_file_into_place(temp_, target_);
  temp_.clear();
}

void write_file_atomically(const std::filesystem::path& path, const std::string& content) {
  StagedFile(path, content).commit();
}

void move_file_into_place(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (!ec) return;
  if (ec != std::errc::cross_device_link)
    throw std::runtime_error(fmt::format("{}: cannot move the finished file into place: {}", to.string(), ec.message()));
  const fs::path temp = temp_path_for(to);
  fs::copy_file(from, temp, ec);
  if (!ec) fs::rename(temp, to, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw std::runtime_error(fmt::format("{}: cannot copy the finished file into place: {}", to.string(), ec.message()));
  }
  fs::remove(from, ec);
}

}  // namespace pacflow
