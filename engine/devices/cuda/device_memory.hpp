#pragma once
// The memory of one GPU as a run uses it: stream-ordered allocations from a memory pool of its own
// (cudaMallocFromPoolAsync, freed with cudaFreeAsync on the stream that last used them), counted
// against the run's budget for the device (`vram=`), with the high-water marks reported in
// result.json. Its own pool, not the device's default one, so that logical GPUs sharing one CUDA
// device (cuda_devices.hpp) each keep, count and give back their memory apart.
#include <atomic>
#include <cstddef>
#include <memory>

#include <cuda_runtime_api.h>

#include "engine/api/tensor.hpp"
#include "engine/devices/cuda/handles.hpp"

namespace pacflow::cuda {

class DeviceMemory {
 public:
  // `budget_bytes` 0: no limit beyond the device's own memory.
  DeviceMemory(Gpu gpu, std::size_t budget_bytes);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // `bytes` of device memory, ready for work queued on `stream` after this call; freed on that
  // stream when the last owner lets go. Throws cuda::Error when the budget or the device is out of
  // memory, naming both figures.
  SharedMemory allocate(std::size_t bytes, cudaStream_t stream);

  Gpu gpu() const { return state_->gpu; }
  std::size_t budget() const { return state_->budget; }
  std::size_t in_use() const { return state_->in_use.load(); }
  std::size_t high_water() const { return state_->high_water.load(); }
  // Lets kernels and copies on CUDA device `ordinal` (a peer with access enabled) read and write
  // this memory directly; without it, memory from a pool stays its own device's.
  void allow_access_from(int ordinal);
  // The pool's own high-water mark of reserved memory (what the driver actually held).
  std::size_t pool_reserved_high_water() const;

 private:
  struct State {
    Gpu gpu;
    cudaMemPool_t pool = nullptr;
    std::size_t budget = 0;
    std::atomic<std::size_t> in_use{0};
    std::atomic<std::size_t> high_water{0};
  };
  std::shared_ptr<State> state_;  // outlives this object while allocations do
};

}  // namespace pacflow::cuda
