#pragma once
// Page-locked host memory from the CUDA runtime (cudaHostAlloc), for the rings and the downloads of
// a run on GPUs.
#include <cstddef>

#include "engine/run/pinned_memory.hpp"

namespace pacflow::cuda {

class PageLockedHost final : public HostAllocator {
 public:
  // Portable memory (usable by every GPU of the process), or null when no GPU is visible or the
  // runtime refuses: PinnedBuffer then locks ordinary memory itself.
  void* allocate(std::size_t bytes) const noexcept override;
  void free(void* p) const noexcept override;
  const char* name() const noexcept override { return "cudaHostAlloc"; }
};

}  // namespace pacflow::cuda
