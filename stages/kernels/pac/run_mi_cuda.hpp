#pragma once
// The binned measures on a GPU (tort and hr) by runs of equal phase bin, the structure of the CPU
// kernels (shifted_mi.hpp; methods/shifted_sums.hpp for hr) and their arithmetic (run_mi_math.hpp),
// so their values equal the CPU's bit for bit:
//
// 1. runs: one block per (series, phase band) bins the phases, finds where the bin changes (a
//    block-wide scan places each run) and counts the samples per bin (integer atomics: exact);
// 2. rows: one thread per (series, amplitude band) writes the band's rows, laid out [time][band] so
//    that the bands of one alignment are neighbours in memory: tort's detrended prefix sums
//    Q[i] = float(P[i] − i·μ), hr's prefix sums P[i] in double;
// 3. sums: one thread per (series, phase band, alignment, amplitude band) walks the phase band's
//    runs in time order, adding the row at the run's end minus the row at its start (both shifted)
//    into the run's bin (its column of the block's shared memory), and evaluates the measure. The
//    threads of a block share one phase band, so they read each run at once (one broadcast load)
//    and differ only in the row they gather.
//
// The work per alignment is the number of runs, not of samples (a 6 Hz phase band at 1 kHz with 18
// bins has about 9 samples per run), and nothing is summed by atomics.
#include <cstdint>

#include "engine/devices/cuda/stage_context.hpp"
#include "stages/kernels/pac/shifted_mi_cuda.hpp"

namespace pacflow::mi {

// out (device) [series][shifts][n_pha][n_amp] of spec's measure (tort or hr), queued on ctx's stream.
void binned_by_runs_on_gpu(const GpuBatchBands& batch, const GpuMeasureSpec& spec, const GpuShifts& shifts,
                           double* out, const cuda::StageContext& ctx);

// Device scratch per series (runs, bin counts, rows for any alignment, band means).
double binned_by_runs_scratch_bytes_per_series(const GpuMeasureSpec& spec, std::int64_t n_pha, std::int64_t n_amp,
                                               std::int64_t length);

}  // namespace pacflow::mi
