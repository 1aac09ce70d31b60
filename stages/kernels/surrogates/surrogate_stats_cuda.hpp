#pragma once
// Per-cell surrogate statistics on a GPU (spec §6): the same cell_stats (surrogate_math.hpp) and
// family-wise max statistic as the CPU, one thread per cell.
#include <cstdint>

#include "engine/devices/cuda/stage_context.hpp"
#include "stages/kernels/surrogates/surrogate_math.hpp"

namespace pacflow::surrogates {

// mi (device) [series][1 + n_perm][cells]: row 0 the observed MI, rows 1… the surrogates.
// Writes the device outputs [series][cells]: z, mean, std, p, maxstat p and, when `normalised` is
// not null, the observed value corrected by `norm`.
void surrogate_stats_on_gpu(const double* mi, std::int64_t series, std::int64_t n_perm, std::int64_t cells,
                            float* const statistics[5], float* normalised, Norm norm, const cuda::StageContext& ctx);

}  // namespace pacflow::surrogates
