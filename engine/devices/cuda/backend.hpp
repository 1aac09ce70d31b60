#pragma once
// The cuda backend (engine/devices/gpu_backend.hpp) over the kernels it is given: the CUDA plugin's
// entry points (stages/cuda_plugin.cpp) hand it the stages' kernels, so the engine names no stage.
#include <map>
#include <memory>
#include <string>

#include "engine/api/stage_kernel.hpp"
#include "engine/devices/gpu_backend.hpp"

namespace pacflow::cuda {

std::unique_ptr<GpuBackend> make_cuda_backend(std::map<std::string, KernelFactory> kernels);

}  // namespace pacflow::cuda
