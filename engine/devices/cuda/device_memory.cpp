#include "engine/devices/cuda/device_memory.hpp"

#include <cstdint>
#include <fmt/format.h>
#include <limits>

#include "engine/devices/cuda/check.hpp"

namespace pacflow::cuda {

namespace {
double mib(std::size_t bytes) { return static_cast<double>(bytes) / 0x1p20; }
}  // namespace

DeviceMemory::DeviceMemory(Gpu gpu, std::size_t budget_bytes) : state_(std::make_shared<State>()) {
  state_->gpu = gpu;
  state_->budget = budget_bytes;
  const DeviceScope on(gpu.ordinal);
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = gpu.ordinal;
  check(cudaMemPoolCreate(&state_->pool, &props), "cudaMemPoolCreate");
  // Keep freed memory in the pool for the next batch instead of returning it to the driver at every
  // synchronisation (allocation then costs no driver call in steady state), up to the budget: the
  // pools of logical GPUs sharing a device never hold more than their shares.
  std::uint64_t keep = budget_bytes > 0 ? budget_bytes : std::numeric_limits<std::uint64_t>::max();
  check(cudaMemPoolSetAttribute(state_->pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute");
}

// The pool keeps freed memory for the run's next batches; once the run is over it goes back to the
// driver (at once, or when the last tensor still holding some of it lets go), so a finished run
// keeps none of the GPU.
DeviceMemory::~DeviceMemory() {
  cudaMemPoolDestroy(state_->pool);
  cudaGetLastError();  // nothing to report from a destructor
}

SharedMemory DeviceMemory::allocate(std::size_t bytes, cudaStream_t stream) {
  State& s = *state_;
  const std::size_t now = s.in_use.fetch_add(bytes) + bytes;
  if (s.budget && now > s.budget) {
    s.in_use.fetch_sub(bytes);
    throw Error(fmt::format("{}: {:.1f} MiB more would exceed the memory budget of {:.1f} MiB ({:.1f} MiB in "
                            "use); raise vram= or lower the batch size",
                            s.gpu.name(), mib(bytes), mib(s.budget), mib(now - bytes)));
  }
  for (std::size_t seen = s.high_water.load(); now > seen && !s.high_water.compare_exchange_weak(seen, now);) {
  }
  void* p = nullptr;
  {
    const DeviceScope on(s.gpu.ordinal);
    // At least one byte, so even an empty tensor has an owner that says "device".
    const cudaError_t status = cudaMallocFromPoolAsync(&p, bytes > 0 ? bytes : 1, s.pool, stream);
    if (status != cudaSuccess) {
      s.in_use.fetch_sub(bytes);
      check(status, fmt::format("{}: allocating {:.1f} MiB", s.gpu.name(), mib(bytes)).c_str());
    }
  }
  std::weak_ptr<State> weak = state_;
  std::shared_ptr<void> owner(p, [weak, ordinal = s.gpu.ordinal, stream, bytes](void* q) {
    const DeviceScope on(ordinal, std::nothrow);  // the freeing thread's device stays as it was
    if (const std::shared_ptr<State> alive = weak.lock()) {
      cudaFreeAsync(q, stream);  // after the stream's work that used it
      alive->in_use.fetch_sub(bytes);
    } else {
      cudaFree(q);  // the run is over and its streams are gone: free synchronously
    }
  });
  return SharedMemory{std::move(owner), static_cast<std::byte*>(p), bytes, false};
}

void DeviceMemory::allow_access_from(int ordinal) {
  cudaMemAccessDesc access{};
  access.location.type = cudaMemLocationTypeDevice;
  access.location.id = ordinal;
  access.flags = cudaMemAccessFlagsProtReadWrite;
  check(cudaMemPoolSetAccess(state_->pool, &access, 1), "cudaMemPoolSetAccess");
}

std::size_t DeviceMemory::pool_reserved_high_water() const {
  std::uint64_t high = 0;
  if (cudaMemPoolGetAttribute(state_->pool, cudaMemPoolAttrReservedMemHigh, &high) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return static_cast<std::size_t>(high);
}

}  // namespace pacflow::cuda
