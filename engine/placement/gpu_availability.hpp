#pragma once
// The GPUs a process can use, as the GPU backend found them (engine/devices/gpu_backend.hpp), or why
// there are none.
#include <cstddef>
#include <string>
#include <vector>

namespace pacflow {

struct GpuInfo {
  int index = 0;    // cuda:<index>
  int ordinal = 0;  // the CUDA device (CUDA_VISIBLE_DEVICES numbering) it runs on: index, unless
  int shares = 1;   // PACFLOW_LOGICAL_GPUS presents each GPU as `shares` logical ones
  std::string name;
  std::size_t memory_bytes = 0;  // of a logical GPU: its share
  int compute_major = 0;
  int compute_minor = 0;
};

struct GpuAvailability {
  std::vector<GpuInfo> devices;
  // When there are none, why, starting with one of "library not installed", "no driver", "driver
  // too old", "no GPU" (or the runtime's own message for a rarer failure).
  std::string why_none;
  std::string versions;  // "CUDA runtime 13.0, driver 12.8", when the library loaded
  int count() const { return static_cast<int>(devices.size()); }
};

}  // namespace pacflow
