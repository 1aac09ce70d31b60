#include "engine/cuda/pinned_host.hpp"

#include <cuda_runtime.h>

namespace pacflow::cuda {

void* host_alloc(std::size_t bytes) noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();  // no driver or no GPU: clear the sticky error, fall back to mlock
    return nullptr;
  }
  void* p = nullptr;
  // Portable: usable by every GPU of the process, whichever device a stage runs on.
  if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}

void host_free(void* p) noexcept { cudaFreeHost(p); }

}  // namespace pacflow::cuda
