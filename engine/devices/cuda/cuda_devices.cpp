#include "engine/devices/cuda/cuda_devices.hpp"

#include <cstdlib>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

namespace pacflow::cuda {

namespace {

// CUDA's versions are 1000 × major + 10 × minor.
std::string version_name(int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

}  // namespace

GpuAvailability visible_devices() {
  GpuAvailability a;
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);  // 0 when no driver is installed
  a.versions = driver > 0 ? fmt::format("CUDA runtime {}, driver {}", version_name(runtime), version_name(driver))
                          : fmt::format("CUDA runtime {}, no driver", version_name(runtime));
  if (driver == 0) {
    a.why_none = "no driver: no NVIDIA driver (libcuda.so.1) was found on this machine";
    return a;
  }
  if (driver < runtime) {
    a.why_none = fmt::format("driver too old: the NVIDIA driver supports CUDA up to {}, this build's runtime is {}; "
                             "update the driver",
                             version_name(driver), version_name(runtime));
    return a;
  }
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorNoDevice || (status == cudaSuccess && count == 0)) {
    cudaGetLastError();  // clear the sticky error
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    a.why_none = visible ? fmt::format("no GPU: the driver sees no CUDA device (CUDA_VISIBLE_DEVICES={})", visible)
                         : std::string("no GPU: the driver sees no CUDA device");
    return a;
  }
  if (status != cudaSuccess) {
    a.why_none = fmt::format("{} ({})", cudaGetErrorString(status), cudaGetErrorName(status));
    cudaGetLastError();
    return a;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    a.devices.push_back({i, prop.name, prop.totalGlobalMem, prop.major, prop.minor});
  }
  if (a.devices.empty()) a.why_none = "no GPU: no CUDA device answered";
  return a;
}

}  // namespace pacflow::cuda
