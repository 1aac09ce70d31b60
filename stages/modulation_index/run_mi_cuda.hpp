#pragma once
// Tort's MI on a GPU by runs of equal phase bin, the structure of the CPU kernel (shifted_mi.hpp)
// and its arithmetic (run_mi_math.hpp), so its values equal the CPU's bit for bit:
//
// 1. runs: one block per (series, phase band) bins the phases, finds where the bin changes (a
//    block-wide scan places each run) and counts the samples per bin (integer atomics: exact);
// 2. rows: one thread per (series, amplitude band) writes the band's detrended prefix rows
//    Q[i] = float(P[i] − i·μ), laid out [time][band] so that the bands of one alignment are
//    neighbours in memory;
// 3. sums: one thread per (series, phase band, alignment, amplitude band) walks the phase band's
//    runs in time order, adding Q[end + shift] − Q[start + shift] into the run's bin (its column of
//    the block's shared memory), and evaluates the MI. The threads of a block share one phase band,
//    so they read each run at once (one broadcast load) and differ only in the row they gather.
//
// The work per alignment is the number of runs, not of samples (a 6 Hz phase band at 1 kHz with 18
// bins has about 9 samples per run), and nothing is summed by atomics.
#include <cstdint>

#include "engine/devices/cuda/stage_context.hpp"
#include "stages/modulation_index/shifted_mi_cuda.hpp"

namespace pacflow::mi {

// out (device) [series][shifts][n_pha][n_amp], queued on ctx's stream.
void tort_by_runs_on_gpu(const GpuBatchBands& batch, int bins, const GpuShifts& shifts, double* out,
                         const cuda::StageContext& ctx);

// Device scratch per series (runs, bin counts, detrended rows for any alignment, band means).
double tort_by_runs_scratch_bytes_per_series(int bins, std::int64_t n_pha, std::int64_t n_amp, std::int64_t length);

}  // namespace pacflow::mi
