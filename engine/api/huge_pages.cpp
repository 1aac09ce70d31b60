#include "engine/api/huge_pages.hpp"

#include <algorithm>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace pacflow {

namespace {
std::uintptr_t huge_page_floor(std::uintptr_t address) { return address / kHugePageBytes * kHugePageBytes; }

#if defined(__linux__)
std::size_t base_page_bytes() { return static_cast<std::size_t>(std::max(::sysconf(_SC_PAGESIZE), 1L)); }
#endif
}  // namespace

void advise_huge_pages(void* data, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = huge_page_floor(begin + kHugePageBytes - 1);
  const std::uintptr_t last = huge_page_floor(begin + bytes);
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

std::byte* map_huge_pages(std::size_t bytes) noexcept {
#if defined(__linux__)
  if (bytes == 0 || kHugePageBytes % base_page_bytes() != 0) return nullptr;
  const std::size_t length = mapped_length(bytes);
  // Mapped a huge page longer, then trimmed to start on one: mmap promises only the base page. The
  // end is the base page after the last byte: a last partial huge page stays in base pages, so the
  // buffer holds no more memory than its own.
  const std::size_t mapped = length + kHugePageBytes;
  void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t start = huge_page_floor(begin + kHugePageBytes - 1);
  if (start > begin) ::munmap(p, start - begin);
  if (const std::uintptr_t tail = begin + mapped - (start + length); tail > 0)
    ::munmap(reinterpret_cast<void*>(start + length), tail);
  auto* data = reinterpret_cast<std::byte*>(start);
  advise_huge_pages(data, length);
  return data;
#else
  (void)bytes;
  return nullptr;
#endif
}

std::size_t mapped_length(std::size_t bytes) noexcept {
#if defined(__linux__)
  const std::size_t page = base_page_bytes();
  return (bytes + page - 1) / page * page;
#else
  return bytes;
#endif
}

void unmap_pages(std::byte* data, std::size_t bytes) noexcept {
#if defined(__linux__)
  if (data) ::munmap(data, bytes);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace pacflow
