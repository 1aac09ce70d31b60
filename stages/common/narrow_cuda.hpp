#pragma once
// out[i] = float(in[i]) on a GPU: results computed in double, stored as the spec's float32.
#include <cstdint>

#include "engine/devices/cuda/stage_context.hpp"

namespace pacflow::cuda {

void narrow_to_float(const double* in, std::int64_t n, float* out, const StageContext& ctx);

}  // namespace pacflow::cuda
