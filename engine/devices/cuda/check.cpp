#include "engine/devices/cuda/check.hpp"

#include <fmt/format.h>

namespace pacflow::cuda {

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clear a non-sticky error so later calls are not blamed for it
  throw Error(fmt::format("{}: {} ({})", what, cudaGetErrorString(status), cudaGetErrorName(status)));
}

void check_launch(const char* kernel) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) check(status, fmt::format("launching {}", kernel).c_str());  // formatted only on failure
}

}  // namespace pacflow::cuda
