#pragma once
// RAII for the CUDA runtime's handles: a device made current for a scope, a stream, an event.
#include <cuda_runtime_api.h>
#include <new>
#include <string>
#include <utility>

#include "engine/devices/cuda/check.hpp"

namespace pacflow::cuda {

// "cuda:N", as device lists name it.
inline std::string device_name(int device) { return "cuda:" + std::to_string(device); }

// A GPU as the run names it (cuda:<index>) and the CUDA device it runs on (`ordinal`): the same
// number, unless PACFLOW_LOGICAL_GPUS presents each GPU as several logical ones (cuda_devices.hpp).
struct Gpu {
  int index = 0;
  int ordinal = 0;
  std::string name() const { return device_name(index); }
};

// Makes CUDA device `ordinal` current for the calling thread for the scope (oneTBB workers serve
// every device), and restores the previous one after. The std::nothrow form, for destructors and
// callbacks that must not throw, ignores errors.
class DeviceScope {
 public:
  explicit DeviceScope(int ordinal);
  DeviceScope(int ordinal, std::nothrow_t) noexcept;
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = -1;
};

// A non-blocking stream on one device (it does not synchronise with the legacy default stream).
class Stream {
 public:
  explicit Stream(Gpu gpu);
  ~Stream();
  Stream(Stream&& other) noexcept : gpu_(other.gpu_), stream_(std::exchange(other.stream_, nullptr)) {}
  Stream& operator=(Stream&&) = delete;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const { return stream_; }
  Gpu gpu() const { return gpu_; }

 private:
  Gpu gpu_;
  cudaStream_t stream_ = nullptr;
};

// An event on one device; `timing` events can measure elapsed time between two of them.
class Event {
 public:
  Event(Gpu gpu, bool timing);
  ~Event();
  Event(Event&& other) noexcept : gpu_(other.gpu_), event_(std::exchange(other.event_, nullptr)) {}
  Event& operator=(Event&& other) noexcept {
    std::swap(gpu_, other.gpu_);
    std::swap(event_, other.event_);
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const { return event_; }
  Gpu gpu() const { return gpu_; }
  void record(cudaStream_t stream);
  // cudaSuccess when done, cudaErrorNotReady while pending, or the error of the work before it.
  cudaError_t query() const;
  // Blocks the calling thread until the event completes; throws if the work before it failed.
  // (For tests and tools: the executor never blocks on a GPU.)
  void wait() const;

 private:
  Gpu gpu_;
  cudaEvent_t event_ = nullptr;
};

// Milliseconds between two completed timing events.
float elapsed_ms(const Event& start, const Event& stop);

}  // namespace pacflow::cuda
