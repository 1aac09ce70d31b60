#include "engine/devices/cuda/cuda_devices.hpp"

#include <charconv>
#include <cstdlib>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

namespace pacflow::cuda {

namespace {

// CUDA's versions are 1000 × major + 10 × minor.
std::string version_name(int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

}  // namespace

LogicalGpus parse_logical_gpus(const char* value) {
  if (value == nullptr || *value == '\0') return {};
  const std::string text(value);
  int n = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (error != std::errc() || end != text.data() + text.size() || n < 1 || n > kMaxLogicalGpus)
    return {1, fmt::format("{}={}: expected a whole number of logical GPUs per GPU, from 1 to {}",
                           kLogicalGpusVariable, text, kMaxLogicalGpus)};
  return {n, ""};
}

std::vector<GpuInfo> split_into_logical(const std::vector<GpuInfo>& gpus, int per_gpu) {
  std::vector<GpuInfo> out;
  for (const GpuInfo& gpu : gpus)
    for (int j = 0; j < per_gpu; ++j) {
      GpuInfo logical = gpu;
      logical.index = gpu.index * per_gpu + j;  // on the same CUDA device (ordinal)
      logical.shares = per_gpu;
      logical.memory_bytes = gpu.memory_bytes / static_cast<std::size_t>(per_gpu);
      out.push_back(std::move(logical));
    }
  return out;
}

GpuAvailability visible_devices(int per_gpu) {
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
    a.devices.push_back({i, i, 1, prop.name, prop.totalGlobalMem, prop.major, prop.minor});
  }
  if (a.devices.empty()) a.why_none = "no GPU: no CUDA device answered";
  if (per_gpu > 1) a.devices = split_into_logical(a.devices, per_gpu);
  return a;
}

}  // namespace pacflow::cuda
