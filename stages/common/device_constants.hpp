#pragma once
// Arrays a GPU stage needs on every device it runs on but never changes (filter spectra, shift
// lists): copied to each device once, on first use there, and freed with the stage.
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <cuda_runtime_api.h>

#include "engine/devices/cuda/check.hpp"
#include "engine/devices/cuda/handles.hpp"
#include "engine/devices/cuda/stage_context.hpp"

namespace pacflow::cuda {

template <typename T>
class DeviceConstants {
 public:
  DeviceConstants() = default;
  explicit DeviceConstants(std::vector<T> values) : host_(std::move(values)) {}

  std::size_t size() const { return host_.size(); }
  // The array on ctx's device, uploaded (synchronously, once) the first time it is asked for there.
  const T* on(const StageContext& ctx) {
    const std::lock_guard lock(mutex_);
    auto& copy = copies_[ctx.device()];
    if (!copy) {
      const DeviceScope scope(ctx.ordinal());
      void* p = nullptr;
      check(cudaMalloc(&p, std::max<std::size_t>(host_.size(), 1) * sizeof(T)), "cudaMalloc (stage constants)");
      copy.reset(static_cast<T*>(p));
      check(cudaMemcpy(p, host_.data(), host_.size() * sizeof(T), cudaMemcpyHostToDevice),
            "cudaMemcpy (stage constants)");
      // From pageable memory cudaMemcpy may return before the data has landed, and the kernels run
      // on non-blocking streams that do not wait for the default stream: wait here, once.
      check(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize (stage constants)");
    }
    return copy.get();
  }

 private:
  struct Free {
    void operator()(T* p) const noexcept { cudaFree(p); }
  };
  std::vector<T> host_;
  std::mutex mutex_;
  std::map<int, std::unique_ptr<T, Free>> copies_;  // by the run's device
};

}  // namespace pacflow::cuda
