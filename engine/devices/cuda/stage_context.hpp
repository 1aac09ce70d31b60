#pragma once
// What a stage's CUDA code gets for one batch: the GPU, the stream the batch's work is queued on,
// and stream-ordered device memory counted against the device's budget. Everything a stage queues
// on the stream runs after the batch's inputs arrived and before its outputs leave.
#include <cstddef>
#include <string>

#include <cuda_runtime_api.h>

#include "engine/api/batch.hpp"
#include "engine/devices/cuda/device_memory.hpp"
#include "engine/devices/cuda/handles.hpp"
#include "engine/api/stage_kernel.hpp"

namespace pacflow::cuda {

class StageContext final : public DeviceContext {
 public:
  StageContext(Gpu gpu, cudaStream_t stream, DeviceMemory& memory) : gpu_(gpu), stream_(stream), memory_(&memory) {}

  // The run's device (cuda:<device()>): what per-device state of a stage is kept by.
  int device() const { return gpu_.index; }
  // The CUDA device it runs on: what CUDA calls that name a device take.
  int ordinal() const { return gpu_.ordinal; }
  Gpu gpu() const { return gpu_; }
  cudaStream_t stream() const { return stream_; }
  std::string device_name() const { return gpu_.name(); }

  // A device tensor [series_count, per_series...] of the batch (contents undefined until a kernel
  // writes them), replacing any tensor of that name.
  Tensor& emplace(Batch& batch, const std::string& name, const Shape& per_series, DType dtype) const;
  // Device memory for the stage's own scratch, released (in stream order) when the owner goes.
  SharedMemory scratch(std::size_t bytes) const { return memory_->allocate(bytes, stream_); }

  template <typename T>
  static T* data(Tensor& t) {
    check_type<T>(t);
    return reinterpret_cast<T*>(t.device_data());
  }
  template <typename T>
  static const T* data(const Tensor& t) {
    check_type<T>(t);
    return reinterpret_cast<const T*>(t.device_data());
  }

 private:
  template <typename T>
  static void check_type(const Tensor& t) {
    if (t.dtype() != dtype_of<T>())
      throw std::logic_error("device tensor holds " + dtype_name(t.dtype()) + ", used as " + dtype_name(dtype_of<T>()));
  }

  Gpu gpu_;
  cudaStream_t stream_;
  DeviceMemory* memory_;
};

}  // namespace pacflow::cuda
