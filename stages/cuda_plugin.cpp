// The CUDA plugin's entry points (engine/devices/gpu_plugin.cpp looks them up by name): the engine's
// cuda backend (engine/devices/cuda/backend.hpp) with this repository's stages' kernels.
#include "engine/devices/cuda/backend.hpp"
#include "stages/cuda_kernels.hpp"

extern "C" {
__attribute__((visibility("default"))) int pacflow_gpu_backend_abi() { return pacflow::kGpuBackendAbi; }
__attribute__((visibility("default"))) const char* pacflow_gpu_backend_version() { return PACFLOW_VERSION; }
__attribute__((visibility("default"))) void pacflow_make_gpu_backend(std::unique_ptr<pacflow::GpuBackend>* out) {
  *out = pacflow::cuda::make_cuda_backend(pacflow::stages::cuda_kernels());
}
}
