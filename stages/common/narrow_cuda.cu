#include "stages/common/narrow_cuda.hpp"

#include "engine/devices/cuda/check.hpp"
#include "stages/common/cuda_launch.hpp"

namespace pacflow::cuda {

namespace {
__global__ void narrow(const double* in, std::int64_t n, float* out) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x)
    out[i] = static_cast<float>(in[i]);
}
}  // namespace

void narrow_to_float(const double* in, std::int64_t n, float* out, const StageContext& ctx) {
  narrow<<<blocks_for(n), kThreads, 0, ctx.stream()>>>(in, n, out);
  check_launch("narrow_to_float");
}

}  // namespace pacflow::cuda
