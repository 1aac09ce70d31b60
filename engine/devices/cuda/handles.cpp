#include "engine/devices/cuda/handles.hpp"

namespace pacflow::cuda {

DeviceScope::DeviceScope(int ordinal) {
  check(cudaGetDevice(&previous_), "cudaGetDevice");
  if (previous_ != ordinal) check(cudaSetDevice(ordinal), "cudaSetDevice");
}

DeviceScope::DeviceScope(int ordinal, std::nothrow_t) noexcept {
  if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
  if (previous_ != ordinal) cudaSetDevice(ordinal);
}

DeviceScope::~DeviceScope() {
  int now = -1;
  if (previous_ >= 0 && cudaGetDevice(&now) == cudaSuccess && now != previous_) cudaSetDevice(previous_);
}

Stream::Stream(Gpu gpu) : gpu_(gpu) {
  const DeviceScope on(gpu.ordinal);
  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
}

Stream::~Stream() {
  if (!stream_) return;
  const DeviceScope on(gpu_.ordinal, std::nothrow);
  cudaStreamDestroy(stream_);  // returns at once; the device finishes queued work first
}

Event::Event(Gpu gpu, bool timing) : gpu_(gpu) {
  const DeviceScope on(gpu.ordinal);
  check(cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault : cudaEventDisableTiming), "cudaEventCreate");
}

Event::~Event() {
  if (!event_) return;
  const DeviceScope on(gpu_.ordinal, std::nothrow);
  cudaEventDestroy(event_);
}

void Event::record(cudaStream_t stream) { check(cudaEventRecord(event_, stream), "cudaEventRecord"); }

cudaError_t Event::query() const {
  const DeviceScope on(gpu_.ordinal, std::nothrow);
  return cudaEventQuery(event_);
}

void Event::wait() const {
  const DeviceScope on(gpu_.ordinal);
  check(cudaEventSynchronize(event_), "cudaEventSynchronize");
}

float elapsed_ms(const Event& start, const Event& stop) {
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime");
  return ms;
}

}  // namespace pacflow::cuda
