#pragma once
// CUDA device discovery. Safe on machines without a driver: any CUDA error means zero devices.
#include <string>
#include <vector>

namespace pacflow::cuda {

struct DeviceInfo {
  int index = 0;
  std::string name;
  std::size_t memory_bytes = 0;
  int compute_major = 0;
  int compute_minor = 0;
};

// Devices visible to this process (honours CUDA_VISIBLE_DEVICES). Empty when CUDA is unavailable,
// and `why` (when given) receives the runtime's explanation.
std::vector<DeviceInfo> visible_devices(std::string* why = nullptr);

}  // namespace pacflow::cuda
