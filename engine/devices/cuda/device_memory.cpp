#include "engine/devices/cuda/device_memory.hpp"

#include <cstdint>
#include <fmt/format.h>
#include <limits>

#include "engine/devices/cuda/check.hpp"
#include "engine/devices/cuda/handles.hpp"

namespace pacflow::cuda {

namespace {
double mib(std::size_t bytes) { return static_cast<double>(bytes) / 0x1p20; }
}  // namespace

DeviceMemory::DeviceMemory(int device, std::size_t budget_bytes) : state_(std::make_shared<State>()) {
  state_->device = device;
  state_->budget = budget_bytes;
  const DeviceScope on(device);
  // Keep freed memory in the pool for the next batch instead of returning it to the driver at every
  // synchronisation: allocation then costs no driver call in steady state.
  cudaMemPool_t pool = nullptr;
  check(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool");
  std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
  check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute");
  std::uint64_t zero = 0;
  check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero), "cudaMemPoolSetAttribute");
}

// The pool keeps freed memory for the run's next batches; once the run is over, what no tensor still
// holds goes back to the driver, so a finished run keeps none of the GPU.
DeviceMemory::~DeviceMemory() {
  cudaMemPool_t pool = nullptr;
  if (cudaDeviceGetDefaultMemPool(&pool, state_->device) == cudaSuccess) cudaMemPoolTrimTo(pool, 0);
  cudaGetLastError();  // nothing to report from a destructor
}

SharedMemory DeviceMemory::allocate(std::size_t bytes, cudaStream_t stream) {
  State& s = *state_;
  const std::size_t now = s.in_use.fetch_add(bytes) + bytes;
  if (s.budget && now > s.budget) {
    s.in_use.fetch_sub(bytes);
    throw Error(fmt::format("cuda:{}: {:.1f} MiB more would exceed the memory budget of {:.1f} MiB ({:.1f} MiB in "
                            "use); raise vram= or lower the batch size",
                            s.device, mib(bytes), mib(s.budget), mib(now - bytes)));
  }
  for (std::size_t seen = s.high_water.load(); now > seen && !s.high_water.compare_exchange_weak(seen, now);) {
  }
  void* p = nullptr;
  {
    const DeviceScope on(s.device);
    // At least one byte, so even an empty tensor has an owner that says "device".
    const cudaError_t status = cudaMallocAsync(&p, bytes > 0 ? bytes : 1, stream);
    if (status != cudaSuccess) {
      s.in_use.fetch_sub(bytes);
      check(status, fmt::format("cuda:{}: allocating {:.1f} MiB", s.device, mib(bytes)).c_str());
    }
  }
  std::weak_ptr<State> weak = state_;
  std::shared_ptr<void> owner(p, [weak, stream, bytes](void* q) {
    const std::shared_ptr<State> alive = weak.lock();
    if (alive) {
      const DeviceScope on(alive->device, std::nothrow);  // the freeing thread's device stays as it was
      cudaFreeAsync(q, stream);  // after the stream's work that used it
      alive->in_use.fetch_sub(bytes);
    } else {
      cudaFree(q);  // the run is over and its streams are gone: free synchronously
    }
  });
  return SharedMemory{std::move(owner), static_cast<std::byte*>(p), bytes, false};
}

std::size_t DeviceMemory::pool_reserved_high_water() const {
  cudaMemPool_t pool = nullptr;
  std::uint64_t high = 0;
  if (cudaDeviceGetDefaultMemPool(&pool, state_->device) != cudaSuccess ||
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &high) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return static_cast<std::size_t>(high);
}

}  // namespace pacflow::cuda
