#pragma once
// The analytic signal (analytic_signal.hpp) of many rows at once on a GPU: the same zero padding,
// the same bin weights and the same phase and amplitude arithmetic (hilbert_math.hpp), with cuFFT
// in place of FFTW. Rows are processed in chunks of a fixed size, so the scratch memory of a batch
// is bounded whatever its size.
#include <cstdint>

#include "engine/devices/cuda/stage_context.hpp"
#include "stages/common/cufft_plans.hpp"
#include "stages/kernels/analytic/analytic_signal.hpp"

namespace pacflow::hilbert {

// Writes the phase or amplitude of each of `rows` device rows of `length` samples (FFT length n)
// into device out [rows][kept]: samples [first, first + kept) of each (kept < 0: length - first),
// on ctx's stream.
void analytic_rows_on_gpu(const float* in, std::int64_t rows, std::int64_t length, std::int64_t n, Output what,
                          float* out, const cuda::StageContext& ctx, cufft::PlanCache& plans, std::int64_t first = 0,
                          std::int64_t kept = -1);

// Device scratch for `rows` rows of FFT length n (rows go in chunks of a bounded size).
double analytic_workspace_bytes(std::int64_t rows, std::int64_t n);

}  // namespace pacflow::hilbert
