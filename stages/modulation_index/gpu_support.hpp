#pragma once
// What the GPU kernels of mi and surrogates cover (shifted_mi_cuda.hpp): Tort's MI of each series
// against itself (pairs=diag) with at most kMaxGpuBins bins. Everything else runs on the CPU.
#include <fmt/format.h>
#include <string>

#include "stages/modulation_index/methods/method.hpp"
#include "stages/modulation_index/pairs.hpp"
#include "stages/modulation_index/shifted_mi_cuda.hpp"

namespace pacflow::mi {

// Empty when the measure can be computed on a GPU, otherwise why not.
inline std::string why_not_on_gpu(const MethodSettings& settings, const PairPlan& pairs) {
  if (settings.kind != MethodKind::Tort)
    return fmt::format("method={} has no CUDA kernel (tort has)", method_name(settings.kind));
  if (!pairs.diagonal()) return "cross-channel pairs are computed on the CPU only";
  if (settings.bins > kMaxGpuBins) return fmt::format("bins={} is above the GPU kernel's {}", settings.bins, kMaxGpuBins);
  return "";
}

}  // namespace pacflow::mi
