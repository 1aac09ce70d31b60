#pragma once
// The CUDA kernels of this repository's stages, by registry name: what the cuda plugin offers
// (engine/devices/cuda/backend.cpp). Each kernel lives in its stage's folder (*_cuda_kernel.cpp).
#include <map>
#include <string>

#include "engine/api/stage_kernel.hpp"

namespace pacflow::stages {

std::map<std::string, KernelFactory> cuda_kernels();

// Each stage folder's factory.
std::unique_ptr<StageKernel> make_bandpass_cuda_kernel(const Stage& stage);
std::unique_ptr<StageKernel> make_hilbert_cuda_kernel(const Stage& stage);
std::unique_ptr<StageKernel> make_mi_cuda_kernel(const Stage& stage);
std::unique_ptr<StageKernel> make_surrogates_cuda_kernel(const Stage& stage);

}  // namespace pacflow::stages
