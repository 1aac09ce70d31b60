#include "engine/io/mapped_file.hpp"

#include <algorithm>
#include <cerrno>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>
#include <utility>

#include "engine/io/atomic_file.hpp"
#include "engine/api/errors.hpp"
#include "engine/io/input_file.hpp"

namespace pacflow {

MappedFile::MappedFile(const std::filesystem::path& path) : MappedFile(InputFile(path)) {}  // regular files only

MappedFile::MappedFile(const InputFile& file) {  // the map outlives the descriptor
  size_ = static_cast<std::size_t>(file.size());
  if (size_ == 0) return;
  void* p = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, file.fd(), 0);
  if (p == MAP_FAILED)
    throw InputError(fmt::format("{}: cannot map into memory: {}", file.path().string(), system_reason(errno)));
  ::madvise(p, size_, MADV_SEQUENTIAL);  // a hint: read ahead, drop behind
  data_ = static_cast<const std::byte*>(p);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void MappedFile::release(std::size_t offset, std::size_t length) const noexcept {
  if (!data_ || offset >= size_) return;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t end = std::min(size_, offset + length);
  const std::size_t first = (offset + page - 1) / page * page;  // whole pages only
  const std::size_t last = end == size_ ? end : end / page * page;
  if (last <= first) return;
  ::madvise(const_cast<std::byte*>(data_) + first, last - first, MADV_DONTNEED);
}

}  // namespace pacflow
