#include "engine/io/atomic_file.hpp"

#include <cerrno>
#include <csignal>
#include <fmt/format.h>
#include <fstream>
#include <random>
#include <regex>
#include <stdexcept>
#include <system_error>
#include <unistd.h>

#include "engine/api/errors.hpp"

namespace pacflow {

namespace fs = std::filesystem;

std::filesystem::path temp_path_for(const std::filesystem::path& path) {
  // pid + a random tag: unique across processes and across writers within one process.
  auto name = fmt::format(".{}.pacflow-tmp-{}-{:08x}", path.filename().string(), static_cast<long>(::getpid()),
                          std::random_device{}());
  return path.parent_path() / name;
}

long temp_file_writer(const std::string& name) {
  static const std::regex pattern(R"(\..+\.pacflow-tmp-([0-9]{1,9})-[0-9a-f]{8})");
  std::smatch m;
  return std::regex_match(name, m, pattern) ? std::stol(m[1].str()) : 0;
}

namespace {

// Whether process `pid` may still write: it exists (kill(pid, 0) fails with ESRCH only when it does not;
// EPERM: it exists, not ours) and is not a zombie, which has ended but waits to be reaped (in a
// container whose first process reaps nothing, a killed MPI rank stays one).
bool may_still_write(long pid) {
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(stat, line)) return true;  // no /proc: trust kill()
  const std::size_t paren = line.rfind(')');   // "pid (name) state …", name may hold spaces
  return paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] != 'Z';
}

}  // namespace

std::vector<std::string> remove_stale_temporaries(const fs::path& folder) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (auto it = fs::directory_iterator(folder, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const auto& entry = *it;
    const std::string name = entry.path().filename().string();
    const long pid = temp_file_writer(name);
    if (pid <= 0 || pid == ::getpid() || may_still_write(pid)) continue;
    std::error_code ignored;
    if (fs::remove(entry.path(), ignored)) removed.push_back(name);
  }
  return removed;
}

std::string system_reason(int error_number) {
  return error_number ? std::generic_category().message(error_number) : "unknown reason";
}

void throw_output_error(const fs::path& path, int error_number, std::string_view action) {
  const std::string message = fmt::format("{}: {}: {}", path.string(), action, system_reason(error_number));
  switch (error_number) {
    case EACCES:
    case EPERM:
    case EROFS:
    case ENOENT:
    case ENOTDIR:
    case EISDIR:
    case ELOOP:
    case ENAMETOOLONG: throw InputError(message);
    default: throw std::runtime_error(message);
  }
}

void write_whole_file(const fs::path& path, std::string_view content, const fs::path& shown) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw_output_error(shown, errno, "cannot create the file");
  errno = 0;
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) {
    const int error = errno;
    std::error_code ec;
    fs::remove(path, ec);
    throw_output_error(shown, error, "write failed");
  }
}

void write_file_atomically(const std::filesystem::path& path, const std::string& content) {
  const fs::path temp = temp_path_for(path);
  write_whole_file(temp, content, path);
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw_output_error(path, ec.value(), "cannot move the finished file into place");
  }
}

}  // namespace pacflow
