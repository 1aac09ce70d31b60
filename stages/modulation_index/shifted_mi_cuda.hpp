#pragma once
// Tort MI of every (shift, phase band, amplitude band) cell of every series of a batch on a GPU:
// the GPU form of shifted_mi.hpp, used by the mi stage (one shift, 0) and the surrogates stage
// (the observed alignment and every permutation's shift).
//
// Each phase sample is binned once per phase band (phase_bin) and the bin counts taken once; they
// do not depend on the shift. One warp then sums, for one cell and shift, the shifted amplitude of
// every sample into its bin: each lane keeps its own per-bin sums (in double, in shared memory),
// and the lanes' sums are added in a fixed order, so the result never depends on scheduling, batch
// size or device count. The MI of the bin means comes from tort_mi_from_means, the same function the
// CPU uses.
#include <cstdint>

#include "engine/cuda/stage_context.hpp"

namespace pacflow::mi {

inline constexpr int kMaxGpuBins = 256;

struct GpuBatchBands {
  const float* phase = nullptr;      // device [series][n_pha][length]
  const float* amplitude = nullptr;  // device [series][n_amp][length]
  std::int64_t series = 0;
  std::int64_t n_pha = 0;
  std::int64_t n_amp = 0;
  std::int64_t length = 0;
};

// out (device) [series][shifts][n_pha][n_amp] = MI with the amplitude circularly shifted by
// shifts[k] (device array, 0 <= shifts[k] < length), queued on ctx's stream.
void shifted_mi_on_gpu(const GpuBatchBands& batch, int bins, const std::int64_t* shifts, std::int64_t shift_count,
                       double* out, const cuda::StageContext& ctx);

// Device scratch per series beside `out` (phase bins and counts).
double shifted_mi_scratch_bytes_per_series(std::int64_t n_pha, std::int64_t length, int bins);

}  // namespace pacflow::mi
