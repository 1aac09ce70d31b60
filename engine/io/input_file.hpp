#pragma once
// Files a run reads (recordings, `.pipe` files, checkpoint records), opened so that nothing can
// block or swallow memory: only regular files are accepted, and the check is made on the open file
// descriptor (opened non-blocking, so a FIFO cannot hang the open itself). A character device such
// as /dev/zero, a FIFO, a socket or a directory is refused at once with one clear message.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace pacflow {

class InputFile {
 public:
  // Opens `path` for reading. Throws InputError "PATH: <reason>" where the reason is what the
  // system said ("no such file", "permission denied", "too many levels of symbolic links") or what
  // the file is when it is not a regular file ("is a directory", "is a named pipe (FIFO): …").
  explicit InputFile(const std::filesystem::path& path);
  // With NoFollow::leaf a symbolic link at `path` itself is refused ("is a symbolic link") instead of
  // followed: for files pacflow wrote and reads back (a shard's), never someone else's via a link.
  enum class NoFollow { leaf };
  InputFile(const std::filesystem::path& path, NoFollow);
  ~InputFile();
  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  int fd() const { return fd_; }
  std::uint64_t size() const { return size_; }
  const std::filesystem::path& path() const { return path_; }
  // The file's device and inode: the same file whatever path names it (links, bind mounts).
  std::uint64_t device() const { return device_; }
  std::uint64_t inode() const { return inode_; }

  // The whole file as text. Throws InputError naming the file when it is larger than `max_bytes`
  // (`what` names the kind of file in that message, e.g. "a pipeline file") or a read fails.
  std::string read_all(std::size_t max_bytes, std::string_view what) const;
  // Reads up to `count` bytes at `offset`; returns how many were read (fewer only at the end).
  std::size_t read_at(std::uint64_t offset, void* dst, std::size_t count) const;

 private:
  InputFile(const std::filesystem::path& path, bool refuse_link);

  std::filesystem::path path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::uint64_t device_ = 0;
  std::uint64_t inode_ = 0;
};

// Refuses `path` unless it names a regular file (following symbolic links), with InputFile's
// messages, for readers that open files by name themselves (EDFlib, libhdf5). It opens the file
// the same non-blocking way, so a FIFO is refused rather than waited on.
void require_regular_file(const std::filesystem::path& path);

// What a file of this stat mode is, for messages: "a directory", "a named pipe (FIFO)", "a
// character device", …; "" for a regular file.
std::string special_file_kind(unsigned mode);

// The reason for an errno, in the words users know: "no such file", "permission denied",
// "too many levels of symbolic links", "is a directory", else the system's message.
std::string file_error_reason(int error_number);

}  // namespace pacflow
