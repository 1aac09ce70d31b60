#pragma once
// A read-only memory map of a whole file: readers touch only the pages they need, and pages already
// consumed can be handed back so a streaming reader's resident memory stays bounded.
#include <cstddef>
#include <filesystem>
#include <span>

namespace pacflow {

class InputFile;

class MappedFile {
 public:
  // Maps `path` read-only. Throws InputError naming the file when it cannot be opened or mapped.
  explicit MappedFile(const std::filesystem::path& path);
  // Maps a file already open (the same file, whatever has happened to its name since).
  explicit MappedFile(const InputFile& file);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;

  // The file's bytes as they were when mapped (an empty file maps to an empty span).
  std::span<const std::byte> bytes() const { return {data_, size_}; }
  // Drops the resident pages wholly inside [offset, offset + length) from this process; they are
  // read again from the file if touched later. A hint: never changes what bytes() reads.
  void release(std::size_t offset, std::size_t length) const noexcept;

 private:
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace pacflow
