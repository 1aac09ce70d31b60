#include "engine/cuda/cuda_devices.hpp"

#include <cuda_runtime.h>

namespace pacflow::cuda {

std::vector<DeviceInfo> visible_devices(std::string* why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    // e.g. "CUDA driver version is insufficient for CUDA runtime version" on machines without a GPU.
    if (why) *why = cudaGetErrorString(status);
    cudaGetLastError();  // clear the sticky error
    return {};
  }
  std::vector<DeviceInfo> devices;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    devices.push_back({i, prop.name, prop.totalGlobalMem, prop.major, prop.minor});
  }
  if (devices.empty() && why) *why = "no CUDA device is visible";
  return devices;
}

}  // namespace pacflow::cuda
