#pragma once
// Page-locked host memory a device backend offers (DeviceBackend::host_allocator): the rings' slots
// (engine/run/pinned_memory.hpp) come from it when a run's stages are on the backend's devices.
#include <cstddef>

namespace pacflow {

// Page-locked memory from a device backend (for GPUs: engine/devices/gpu_backend.hpp).
class HostAllocator {
 public:
  virtual ~HostAllocator() = default;
  // Null when the backend cannot give it (the caller then locks ordinary memory). Never throws.
  virtual void* allocate(std::size_t bytes) const noexcept = 0;
  virtual void free(void* p) const noexcept = 0;
  virtual const char* name() const noexcept = 0;  // "cudaHostAlloc"
};

}  // namespace pacflow
