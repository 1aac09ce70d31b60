#pragma once
// The arithmetic of the binned measures over runs of equal phase bin, for one amplitude band and
// alignment at a time, as the GPU's run kernels (run_mi_cuda.cu) do it: the same operations on the
// same values in the same order per cell, so the GPU's tort and hr equal the CPU's bit for bit.
//
// Tort: the CPU's run kernel (shifted_mi.cpp, run_table.cpp) keeps 16 amplitude bands per vector
// and walks two alignments per pass; each lane (band) and alignment still sees exactly the scalar
// steps below, which run_mi_math_test.cpp checks against that kernel.
//
// Per series:
// - band_mean and detrended_rows: Q[i] = float(P[i] − i·μ), P the double prefix sum of the
//   amplitude wrapped circularly, μ its mean (shifted_mi.cpp, DetrendedRows).
// - per (phase band, amplitude band, alignment): walk the phase band's runs of equal bin in time
//   order, adding Q[end + shift] − Q[start + shift] (float) into the run's bin, moving the float sums
//   into double ones after the runs that start before each multiple of kRunFlushSamples below the
//   length (run_table.cpp's flushes); then each bin's mean and tort_mi_from_means.
#include <cstdint>

#include "stages/common/hd.hpp"
#include "stages/kernels/pac/mi_math.hpp"

namespace pacflow::mi {

// Samples between two flushes of the float sums into double ones: run_table.hpp's
// kRunBlock · kRunFlushBlocks (checked there).
constexpr std::int32_t kRunFlushSamples = 4096;

// μ: the amplitude's samples summed in double, in time order, over the length.
PACFLOW_HD inline double band_mean(const float* amplitude, std::int64_t length) {
  double total = 0.0;
  for (std::int64_t i = 0; i < length; ++i) total += static_cast<double>(amplitude[i]);
  return total / static_cast<double>(length);
}

// q[i · stride] for i in [0, rows): Q[0] = 0, Q[i + 1] = float(P[i + 1] − (i + 1)·μ) with
// P[i + 1] = Σ_{j ≤ i} A[j mod length] (rows <= 2 · length).
PACFLOW_HD inline void detrended_rows(const float* amplitude, std::int64_t length, double mean, std::int64_t rows,
                                      float* q, std::int64_t stride) {
  double sum = 0.0;
  q[0] = 0.0f;
  for (std::int64_t i = 0; i + 1 < rows; ++i) {
    sum += static_cast<double>(amplitude[i < length ? i : i - length]);
    q[(i + 1) * stride] = static_cast<float>(sum - static_cast<double>(i + 1) * mean);
  }
}

// The float sums of one alignment since the last flush and the double sums flushed so far, bin j's
// at [j · stride] (a GPU thread's column of its block's shared memory, or a plain array).
struct BinSums {
  float* partial;
  double* flushed;
  std::int64_t stride;
};

PACFLOW_HD inline void clear_sums(const BinSums& sums, int bins) {
  for (int j = 0; j < bins; ++j) {
    sums.partial[j * sums.stride] = 0.0f;
    sums.flushed[j * sums.stride] = 0.0;
  }
}

PACFLOW_HD inline void flush_sums(const BinSums& sums, int bins) {
  for (int j = 0; j < bins; ++j) {
    sums.flushed[j * sums.stride] += static_cast<double>(sums.partial[j * sums.stride]);
    sums.partial[j * sums.stride] = 0.0f;
  }
}

// Runs are read kRunGroup at a time: the rows at their ends are all loaded before the first of them
// is added, so that a GPU thread has that many loads in flight instead of one (the additions keep
// their order, and so their bits).
constexpr int kRunGroup = 4;

// Adds the runs [first, last) of one phase band (run r: samples up to ends[r], exclusive, in bin
// bin_of[r]; the first starts at `start`) into `sums` under alignment `shift`, with q the band's
// detrended rows (q[i · q_stride]). `next_flush` is the next multiple of kRunFlushSamples not yet
// flushed; it advances past every one that the runs leave behind. Call it with the runs in time
// order, in as many pieces as suits (each piece continuing where the last ended), then finish_runs.
template <class Bin>
PACFLOW_HD_INLINE void add_runs(const std::int32_t* ends, const Bin* bin_of, std::int32_t first, std::int32_t last,
                                std::int32_t start, const float* q, std::int64_t q_stride, std::int64_t shift,
                                int bins, const BinSums& sums, std::int32_t& next_flush) {
  float previous = q[(start + shift) * q_stride];
  const auto add = [&](std::int32_t r, std::int32_t end, float current) {
    // Every flush point at or before this run's start comes after the runs that start before it.
    while (start >= next_flush) {
      flush_sums(sums, bins);
      next_flush += kRunFlushSamples;
    }
    sums.partial[static_cast<std::int64_t>(bin_of[r]) * sums.stride] += current - previous;
    previous = current;
    start = end;
  };
  std::int32_t r = first;
  for (; r + kRunGroup <= last; r += kRunGroup) {
    std::int32_t end[kRunGroup];
    float current[kRunGroup];
    for (int i = 0; i < kRunGroup; ++i) end[i] = ends[r + i];
    for (int i = 0; i < kRunGroup; ++i) current[i] = q[(end[i] + shift) * q_stride];
    for (int i = 0; i < kRunGroup; ++i) add(r + i, end[i], current[i]);
  }
  for (; r < last; ++r) add(r, ends[r], q[(ends[r] + shift) * q_stride]);
}

// After the last run: the flush points past the last run's start and below the length.
PACFLOW_HD inline void finish_runs(std::int64_t length, int bins, const BinSums& sums, std::int32_t& next_flush) {
  while (next_flush < length) {
    flush_sums(sums, bins);
    next_flush += kRunFlushSamples;
  }
}

// The Tort MI of the cell from its sums: mean_j = S_j / count_j + μ for an occupied bin (S_j the
// bin's detrended sum), 0 for an empty one, as shifted_mi.cpp's evaluate. The means are written
// over sums.flushed.
PACFLOW_HD inline double tort_mi_of_sums(const BinSums& sums, const std::int32_t* counts, int bins, double mean,
                                         std::int64_t length, double inv_log_bins) {
  const bool flushes = length > kRunFlushSamples;
  for (int j = 0; j < bins; ++j) {
    double sum = static_cast<double>(sums.partial[j * sums.stride]);
    if (flushes) sum += sums.flushed[j * sums.stride];
    const double occupied = counts[j] > 0 ? 1.0 : 0.0;
    sums.flushed[j * sums.stride] = sum * inverse_count(counts[j]) + mean * occupied;
  }
  return tort_mi_from_means<double, long long>(sums.flushed, bins, inv_log_bins, sums.stride);
}

// ---- the heights ratio (methods/shifted_sums.hpp: PhaseRuns, wrapped_prefix; the CPU calls these) ----

// p[i · stride] for i in [0, rows): P[0] = 0, P[i + 1] = P[i] + A[i mod length], in double
// (rows <= 2 · length + 1).
PACFLOW_HD inline void wrapped_prefix_rows(const float* amplitude, std::int64_t length, std::int64_t rows, double* p,
                                           std::int64_t stride) {
  double sum = 0.0;
  p[0] = 0.0;
  for (std::int64_t i = 0; i + 1 < rows; ++i) {
    sum += static_cast<double>(amplitude[i < length ? i : i - length]);
    p[(i + 1) * stride] = sum;
  }
}

// sums[bin_of[r] · sums_stride] += P[ends[r] + shift] − P[start of run r + shift] for the runs
// [first, last) of one phase band in time order (the first starting at `start`), with p the band's
// prefix rows (p[i · p_stride]).
template <class Bin>
PACFLOW_HD_INLINE void add_prefix_runs(const std::int32_t* ends, const Bin* bin_of, std::int32_t first,
                                       std::int32_t last, std::int32_t start, const double* p, std::int64_t p_stride,
                                       std::int64_t shift, double* sums, std::int64_t sums_stride) {
  double previous = p[(start + shift) * p_stride];
  const auto add = [&](std::int32_t r, double current) {
    sums[static_cast<std::int64_t>(bin_of[r]) * sums_stride] += current - previous;
    previous = current;
  };
  std::int32_t r = first;
  for (; r + kRunGroup <= last; r += kRunGroup) {  // kRunGroup rows in flight, as add_runs
    double current[kRunGroup];
    for (int i = 0; i < kRunGroup; ++i) current[i] = p[(ends[r + i] + shift) * p_stride];
    for (int i = 0; i < kRunGroup; ++i) add(r + i, current[i]);
  }
  for (; r < last; ++r) add(r, p[(ends[r] + shift) * p_stride]);
}

}  // namespace pacflow::mi
