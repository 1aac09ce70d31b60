#pragma once
// The CUDA kernels of this repository's stages, by registry name: what the cuda plugin offers
// (engine/devices/cuda/backend.cpp). Each kernel lives in its stage's folder (*_cuda_kernel.cpp) and is
// declared in the folder's stage.cmake (CUDA_KERNELS); the list is generated at build time
// (cuda_kernel_list.cpp, cmake/PacflowStageFolders.cmake).
#include <map>
#include <memory>
#include <string>

#include "engine/api/stage_kernel.hpp"

namespace pacflow::stages {

std::map<std::string, KernelFactory> cuda_kernels();

}  // namespace pacflow::stages
