#include "engine/io/input_file.hpp"

#include <cerrno>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <utility>

#include "engine/api/errors.hpp"

namespace pacflow {

std::string file_error_reason(int error_number) {
  switch (error_number) {
    case ENOENT: return "no such file";
    case EACCES: return "permission denied";
    case ELOOP: return "too many levels of symbolic links";
    case EISDIR: return "is a directory";
    case ENOTDIR: return "a component of the path is not a directory";
    case ENAMETOOLONG: return "the file name is too long";
    default: return std::generic_category().message(error_number);
  }
}

std::string special_file_kind(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "";
    case S_IFDIR: return "a directory";
    case S_IFIFO: return "a named pipe (FIFO)";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    default: return "not a regular file";
  }
}

namespace {
[[noreturn]] void not_regular(const std::filesystem::path& path, const std::string& kind) {
  throw InputError(fmt::format("{}: is {}; pacflow reads only regular files, whose size is known before they are read",
                               path.string(), kind));
}
}  // namespace

InputFile::InputFile(const std::filesystem::path& path) : InputFile(path, false) {}

InputFile::InputFile(const std::filesystem::path& path, NoFollow) : InputFile(path, true) {}

InputFile::InputFile(const std::filesystem::path& path, bool refuse_link) : path_(path) {
  // Looked at before it is opened: opening some devices does something (a tape rewinds, a watchdog
  // arms). Then opened with O_NONBLOCK, so that a FIFO put there meanwhile cannot block the open,
  // and looked at again on the descriptor, which is what will be read.
  struct stat st {};
  if ((refuse_link ? ::lstat(path.c_str(), &st) : ::stat(path.c_str(), &st)) != 0) {
    const std::string message = fmt::format("{}: {}", path.string(), file_error_reason(errno));
    if (errno == ENOENT) throw MissingFileError(path.string(), message);
    throw InputError(message);
  }
  if (S_ISLNK(st.st_mode)) not_regular(path, "a symbolic link");
  if (const std::string kind = special_file_kind(st.st_mode); !kind.empty()) not_regular(path, kind);
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (refuse_link ? O_NOFOLLOW : 0));
  if (fd_ < 0) throw InputError(fmt::format("{}: {}", path.string(), file_error_reason(errno)));
  if (::fstat(fd_, &st) != 0) {
    const int error = errno;
    ::close(fd_);
    throw InputError(fmt::format("{}: cannot read its size: {}", path.string(), file_error_reason(error)));
  }
  if (const std::string kind = special_file_kind(st.st_mode); !kind.empty()) {
    ::close(fd_);
    not_regular(path, kind);
  }
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  size_ = static_cast<std::uint64_t>(st.st_size);
  device_ = static_cast<std::uint64_t>(st.st_dev);
  inode_ = static_cast<std::uint64_t>(st.st_ino);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

InputFile::InputFile(InputFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)), size_(other.size_), device_(other.device_),
      inode_(other.inode_) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
    device_ = other.device_;
    inode_ = other.inode_;
  }
  return *this;
}

std::size_t InputFile::read_at(std::uint64_t offset, void* dst, std::size_t count) const {
  auto* out = static_cast<char*>(dst);
  std::size_t done = 0;
  while (done < count) {
    const ssize_t got = ::pread(fd_, out + done, count - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw InputError(fmt::format("{}: read failed: {}", path_.string(), file_error_reason(errno)));
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

std::string InputFile::read_all(std::size_t max_bytes, std::string_view what) const {
  if (size_ > max_bytes)
    throw InputError(fmt::format("{}: {:.1f} MiB is too large for {} (at most {:.0f} MiB)", path_.string(),
                                 static_cast<double>(size_) / 0x1p20, what, static_cast<double>(max_bytes) / 0x1p20));
  std::string text(static_cast<std::size_t>(size_), '\0');
  text.resize(read_at(0, text.data(), text.size()));  // a file that shrank meanwhile: what is there
  return text;
}

void require_regular_file(const std::filesystem::path& path) { [[maybe_unused]] const InputFile file(path); }

}  // namespace pacflow
