#include "engine/devices/cuda/pinned_host.hpp"

#include <cuda_runtime.h>

namespace pacflow::cuda {

void* PageLockedHost::allocate(std::size_t bytes) const noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();  // no driver or no GPU: clear the sticky error, fall back to mlock
    return nullptr;
  }
  void* p = nullptr;
  if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}

void PageLockedHost::free(void* p) const noexcept { cudaFreeHost(p); }

}  // namespace pacflow::cuda
