#pragma once
// Page-locked host buffers for batches coming back from a GPU, reused across batches: allocating
// page-locked memory costs milliseconds, so each size is allocated once and handed out again when
// its tensor is dropped. Downloads into them are true asynchronous DMA.
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/run/pinned_memory.hpp"
#include "engine/api/tensor.hpp"

namespace pacflow::cuda {

class PinnedPool {
 public:
  // Buffers from `page_locked`, which must outlive the pool and its buffers.
  explicit PinnedPool(const HostAllocator& page_locked);
  // A buffer of exactly `bytes` (at least one), given back to the pool when its last owner lets go;
  // freed outright if the pool is gone by then.
  SharedMemory take(std::size_t bytes);
  std::size_t bytes_held() const;  // page-locked bytes allocated so far

 private:
  struct State {
    std::mutex mutex;
    std::map<std::size_t, std::vector<std::unique_ptr<PinnedBuffer>>> free;
    std::size_t held = 0;
  };
  const HostAllocator* page_locked_;
  std::shared_ptr<State> state_;
};

}  // namespace pacflow::cuda
