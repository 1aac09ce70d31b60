#pragma once
// Which PAC measures the GPU kernels cover (shifted_mi_cuda.hpp): tort, hr, mvl, ndpac and plv of
// each series against itself (pairs=diag), binned ones with at most kMaxGpuBins bins. gc (ranks for
// its copula) and cross-channel pairs run on the CPU.
#include <fmt/format.h>
#include <optional>
#include <string>

#include "stages/kernels/pac/methods/method.hpp"
#include "stages/kernels/pac/pairs.hpp"
#include "stages/kernels/pac/shifted_mi_cuda.hpp"

namespace pacflow::mi {

// The GPU form of a method for series of `length` samples, if it has one.
inline std::optional<GpuMeasureSpec> gpu_measure(const MethodSettings& settings, std::int64_t length) {
  switch (settings.kind) {
    case MethodKind::Tort: return GpuMeasureSpec{GpuMeasure::Tort, settings.bins, 0};
    case MethodKind::Hr: return GpuMeasureSpec{GpuMeasure::HeightsRatio, settings.bins, 0};
    case MethodKind::Mvl: return GpuMeasureSpec{GpuMeasure::VectorLength, settings.bins, 0};
    case MethodKind::Ndpac:
      return GpuMeasureSpec{GpuMeasure::NormalisedDirect, settings.bins, ndpac_threshold(settings.ndpac_p, length)};
    case MethodKind::Plv: return GpuMeasureSpec{GpuMeasure::PhaseLocking, settings.bins, 0};
    case MethodKind::Gc: break;
  }
  return std::nullopt;
}

// Empty when the measure can be computed on a GPU, otherwise why not.
inline std::string why_not_on_gpu(const MethodSettings& settings, const PairPlan& pairs) {
  if (!gpu_measure(settings, 2))
    return fmt::format("method={} has no CUDA kernel (tort, hr, mvl, ndpac and plv have)", method_name(settings.kind));
  if (!pairs.diagonal()) return "cross-channel pairs are computed on the CPU only";
  const bool binned = settings.kind == MethodKind::Tort || settings.kind == MethodKind::Hr;
  if (binned && settings.bins > kMaxGpuBins)
    return fmt::format("bins={} is above the GPU kernel's {}", settings.bins, kMaxGpuBins);
  return "";
}

}  // namespace pacflow::mi
