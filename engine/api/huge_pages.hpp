#pragma once
// Large host buffers on mappings of their own, on transparent huge pages where the system offers
// them on request. A fresh buffer of hundreds of MB is otherwise touched in 4 KiB pages, a fault each
// (a quarter of the drop-in's amplitude filtering), and was cleared twice: by the kernel, then by
// hand (docs/performance.md, "Huge pages").
#include <cstddef>

namespace pacflow {

// The size of a transparent huge page on x86-64 and AArch64 (4 KiB base pages).
constexpr std::size_t kHugePageBytes = std::size_t{1} << 21;

// Buffers from this size up (a huge page) are mapped on their own; smaller ones come from the heap.
constexpr std::size_t kHugePageThreshold = kHugePageBytes;

// Asks for huge pages over the whole huge pages inside [data, data + bytes), before they are touched.
// A hint: nothing happens where the system has none (enabled = never) or refuses.
void advise_huge_pages(void* data, std::size_t bytes) noexcept;

// A fresh anonymous mapping of `bytes` that starts on a huge page and is advised as above: zero, as
// every new mapping is, with nothing written to it yet; it ends on the base page after its last byte.
// Null where the system gives no such mapping; the caller then uses the heap. Give it back with
// unmap_pages(data, mapped_length(bytes)).
std::byte* map_huge_pages(std::size_t bytes) noexcept;
std::size_t mapped_length(std::size_t bytes) noexcept;
void unmap_pages(std::byte* data, std::size_t bytes) noexcept;

}  // namespace pacflow
