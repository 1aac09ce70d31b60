#pragma once
// Tort MI of every (phase band, amplitude band) cell of one series, for the observed alignment and
// for circular shifts of the amplitude: the hot loop of the mi and surrogates stages.
//
// How it is fast without changing the definition (spec §5, §6):
// - Each phase sample is binned once per phase band, and the series is cut into runs of equal bin
//   (run_table.hpp).
// - Amplitude prefix sums (wrapped to T + the largest shift + 1 rows, detrended to float, see
//   DetrendedRows) are laid out [time][16 amplitude bands], so the amplitude over a run [a, e)
//   shifted by s is Q[e + s] − Q[a + s] (+ a known term): one 16-lane subtraction per run, band
//   group and shift, whatever the run's length. Consecutive runs share their boundary, so each run
//   costs one row load and one 16-lane add into its bin; two shifts share each pass over the runs.
// - Time goes in blocks of 256 samples, all phase bands per block, so the rows a block reads stay
//   in L1 while every phase band uses them.
// - The MI of several cells at a time comes from tort_mi_from_means on vectors (the same
//   arithmetic as the scalar and CUDA forms) over the cells packed densely, and the kernel is
//   compiled per vector width and instruction set (stages/common/lanes.hpp).
#include <cstddef>
#include <cstdint>
#include <span>
#include <stop_token>

namespace pacflow::mi {

struct SeriesBands {
  const float* phase = nullptr;      // [n_pha][length]
  const float* amplitude = nullptr;  // [n_amp][length]
  std::int64_t n_pha = 0;
  std::int64_t n_amp = 0;
  std::int64_t length = 0;
};

// out[k · n_pha · n_amp + p · n_amp + a] = MI of phase band p against amplitude band a circularly
// shifted by shifts[k], A((t + shifts[k]) mod T), with 0 <= shifts[k] < T. Runs the amplitude band
// groups in parallel (oneTBB, nested inside any caller's parallelism). simd_bytes picks the vector
// width (16, 32 or 64 bytes; 0 = the widest this CPU has); every width gives the same bits.
void shifted_modulation_index(const SeriesBands& series, int bins, std::span<const std::int64_t> shifts, double* out,
                              int simd_bytes = 0);
// The same with the widest vectors, checking `stop` between pairs of shifts: throws RunCancelled(-1)
// soon after it is requested (out is then incomplete). A million shifts at 1024 bins take minutes.
void shifted_modulation_index(const SeriesBands& series, int bins, std::span<const std::int64_t> shifts, double* out,
                              const std::stop_token& stop);

// One amplitude of shifted_modulation_indices: its bands ([n_amp][length], as SeriesBands'), the
// shifts it is aligned at, where their values go (laid out as shifted_modulation_index's out) and
// which of the call's phase series it is paired with.
struct ShiftedAmplitude {
  const float* amplitude = nullptr;
  std::span<const std::int64_t> shifts;
  double* out = nullptr;
  std::size_t phase = 0;
};

// shifted_modulation_index of several phase series (of one shape; their .amplitude unused), each
// against the amplitudes paired with it: each amplitude's values are, bit for bit, those of a call
// of its own. The trial-level test pairs each phase with its channel's amplitude in every epoch of
// a block: each phase is binned into runs once for all its amplitudes, each amplitude's detrended
// rows are built once for all the phases it meets (within a memory bound), and one phase's
// single alignments of several amplitudes share a pass over its runs. Parallel and stoppable as the
// single form.
void shifted_modulation_indices(std::span<const SeriesBands> phases, int bins,
                                std::span<const ShiftedAmplitude> amplitudes, const std::stop_token& stop,
                                int simd_bytes = 0);
// The bytes a shifted_modulation_indices call holds for the detrended rows it shares: `amplitudes`
// amplitudes of n_amp bands met by several of its jobs, `rows` rows each (T + the largest shift
// + 1); 0 when those would pass its bound (32 MiB), in which case each job builds its own.
double shared_rows_bytes(std::int64_t amplitudes, std::int64_t n_amp, std::int64_t rows);

}  // namespace pacflow::mi
