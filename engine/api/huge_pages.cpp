#include "engine/api/huge_pages.hpp"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace pacflow {

namespace {
std::uintptr_t huge_page_floor(std::uintptr_t address) { return address / kHugePageBytes * kHugePageBytes; }
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
  if (bytes == 0 || bytes % kHugePageBytes != 0) return nullptr;
  // Mapped a huge page longer, then trimmed to start on one: mmap promises only the base page.
  const std::size_t mapped = bytes + kHugePageBytes;
  void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t start = huge_page_floor(begin + kHugePageBytes - 1);
  if (start > begin) ::munmap(p, start - begin);
  if (const std::uintptr_t tail = begin + mapped - (start + bytes); tail > 0)
    ::munmap(reinterpret_cast<void*>(start + bytes), tail);
  auto* data = reinterpret_cast<std::byte*>(start);
  advise_huge_pages(data, bytes);
  return data;
#else
  (void)bytes;
  return nullptr;
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
