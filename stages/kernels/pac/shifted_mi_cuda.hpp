#pragma once
// The PAC measures of every (shift, phase band, amplitude band) cell of every series of a batch on
// a GPU: the GPU form of the methods' evaluate() (methods/method.hpp), used by the mi stage (one
// shift, 0) and the surrogates stage (the observed alignment and every surrogate's shift).
//
// Binned measures (tort, hr): by runs of equal phase bin, as the CPU, bit for bit (run_mi_cuda.hpp).
// Complex-sum measures (mvl, ndpac, plv): cos and sin of each phase (and envelope phase) are taken
// once; one warp sums Σ_t A(t + s) e^{iφ(t)} (or e^{i(φ(t) − ψ(t + s))}) for one cell and shift, the
// lanes' partial sums added by a fixed shuffle tree; the value comes from vector_length or
// normalised_direct_pac (pac_math.hpp).
// No floating-point atomics anywhere: a series' numbers never depend on its batch, the GPU count or
// the schedule.
#include <cstdint>

#include "engine/devices/cuda/stage_context.hpp"

namespace pacflow::mi {

inline constexpr int kMaxGpuBins = 256;

enum class GpuMeasure { Tort, HeightsRatio, VectorLength, NormalisedDirect, PhaseLocking };

struct GpuMeasureSpec {
  GpuMeasure measure = GpuMeasure::Tort;
  int bins = 18;                 // tort, hr
  double ndpac_threshold = 0;    // ndpac: on |S|²
};

struct GpuBatchBands {
  const float* phase = nullptr;           // device [series][n_pha][length]
  const float* amplitude = nullptr;       // device [series][n_amp][length]
  const float* envelope_phase = nullptr;  // device [series][n_pha][n_amp][length], plv only
  std::int64_t series = 0;
  std::int64_t n_pha = 0;
  std::int64_t n_amp = 0;
  std::int64_t length = 0;
};

// The alignments of the amplitude: values[k] (device array, 0 <= values[k] < length), the largest
// of them on the host.
struct GpuShifts {
  const std::int64_t* values = nullptr;
  std::int64_t count = 0;
  std::int64_t largest = 0;
};

// out (device) [series][shifts][n_pha][n_amp] = the measure with the amplitude (and, for plv, the
// envelope phase) circularly shifted by shifts.values[k], queued on ctx's stream.
void shifted_measure_on_gpu(const GpuBatchBands& batch, const GpuMeasureSpec& spec, const GpuShifts& shifts,
                            double* out, const cuda::StageContext& ctx);

// Device scratch per series beside `out` (bins and counts, or cosines and sines and moments).
double shifted_measure_scratch_bytes_per_series(const GpuMeasureSpec& spec, std::int64_t n_pha, std::int64_t n_amp,
                                                std::int64_t length);

}  // namespace pacflow::mi
