#include "stages/kernels/pac/shifted_mi.hpp"

#include <algorithm>
#include <numeric>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <stdexcept>
#include <vector>

#include "engine/api/errors.hpp"
#include "stages/common/lanes.hpp"
#include "stages/kernels/pac/mi_math.hpp"
#include "stages/kernels/pac/run_table.hpp"

namespace pacflow::mi {

namespace {

using simd::load;
using simd::store;

constexpr int kBands = simd::FloatRows::kFloats;  // amplitude bands per group: one 64-byte row
constexpr int kMaxDoubles = 8;                      // doubles in the widest vector

// One group of up to 16 amplitude bands as float rows Q[i] = P[i] − i·μ for i in [0, rows), where
// P[i] = Σ_{t<i} A[t mod T] (summed in double) and μ the band's mean amplitude. A run's amplitude
// sum is then Q[e] − Q[a] + (e − a)·μ, and the (e − a)·μ part, summed over a bin, is count·μ: added
// exactly at the end. Removing the trend keeps Q small (it only follows the amplitude's deviations
// from its mean), so float rows lose nothing that matters (≈1e-7 relative on the MI, tested), and
// 16 bands fit one 64-byte row. Lanes past the group's bands stay zero.
struct DetrendedRows {
  simd::FloatRows rows;
  alignas(64) double mean[kBands] = {};
};

// The sums of one alignment, per (phase band, bin) cell and amplitude band of the group: float sums
// since the last flush and, for series longer than one flush, the double sums flushed so far.
struct AlignmentSums {
  simd::FloatRows partial;      // [cell][16]
  std::vector<double> flushed;  // [cell][16]
};

// Alignments accumulated together, in order of their shift, pass by pass over the run table: each
// time block's rows under those shifts lie within the tile's spread of shifts, a window that stays
// in the core's cache while the runs move through the series. On series longer than the caches
// (gPAC's 600 000 samples: 38 MB of rows) the rows are then read from memory about once per tile
// rather than once per alignment.
constexpr std::size_t kShiftTile = 8;

// A thread's buffers, kept from one job to the next of a call (shifted_modulation_indices' jobs
// differ only in their amplitudes and shifts): the sums are left at zero by each evaluation, and
// the lanes of by_time past a group's bands stay zero.
struct GroupWork {
  DetrendedRows q;
  simd::FloatRows by_time;  // [time][16]: the group's amplitudes, transposed
  std::int64_t by_time_lanes = 0;  // lanes of by_time written so far
  AlignmentSums sums[kShiftTile];
  std::size_t sums_ready = 0;  // sums sized for the run table and zero
  simd::FloatRows bin_means;   // [bin][dense] doubles: mean amplitude per bin of every (p, band) cell
};

struct GroupJob {
  const SeriesBands& series;
  const RunTable& table;
  std::span<const std::int64_t> shifts;
  int bins;
  std::int64_t first_band;
  std::int64_t rows;  // detrended rows needed: T + the largest shift + 1
  GroupWork& work;
  double* out;
  const std::stop_token& stop;

  std::int64_t bands() const { return std::min<std::int64_t>(kBands, series.n_amp - first_band); }
  // Doubles per bin in the packed bin means: one per (phase band, amplitude band) cell, rounded up
  // to whole vectors of the widest width.
  std::int64_t packed_stride() const { return (series.n_pha * bands() + kMaxDoubles - 1) / kMaxDoubles * kMaxDoubles; }
};

// Bytes / 8 floats starting at `from`, widened to a vector of doubles of width Bytes.
template <int Bytes>
__attribute__((always_inline)) inline typename simd::Simd<Bytes>::Double widened(const float* from) {
  return __builtin_convertvector(load<typename simd::Simd<Bytes>::HalfFloat>(from), typename simd::Simd<Bytes>::Double);
}

// The detrended rows of the job's band group. The bands are first laid out [time][16] so the sums
// of all bands advance together, Bytes / 8 lanes per vector; each lane adds its band's samples in
// time order, so the bits are those of a plain per-band loop whatever the width.
template <int Bytes>
__attribute__((always_inline)) inline void detrended_rows(const GroupJob& job) {
  using Double = typename simd::Simd<Bytes>::Double;
  constexpr int kPerDouble = simd::Simd<Bytes>::doubles;
  constexpr int kVectors = kBands / kPerDouble;
  const auto t = static_cast<std::size_t>(job.series.length);
  const std::int64_t used = job.bands();
  DetrendedRows& q = job.work.q;
  q.rows.resize(static_cast<std::size_t>(job.rows));
  simd::FloatRows& by_time = job.work.by_time;
  by_time.resize(t);
  if (job.work.by_time_lanes > used)  // a fuller group came before: its extra lanes back to zero
    for (std::size_t i = 0; i < t; ++i) std::fill(by_time.row(i) + used, by_time.row(i) + job.work.by_time_lanes, 0.0f);
  job.work.by_time_lanes = used;
  // In tiles of 64 samples (4 KiB of rows), so the scattered stores stay in L1.
  for (std::size_t tile = 0; tile < t; tile += 64)
    for (std::int64_t lane = 0; lane < used; ++lane) {
      const float* a = job.series.amplitude + static_cast<std::size_t>(job.first_band + lane) * t;
      for (std::size_t i = tile; i < std::min(t, tile + 64); ++i) by_time.row(i)[lane] = a[i];
    }
  const float* samples = by_time.data();
  Double total[kVectors] = {};
  for (std::size_t i = 0; i < t; ++i)
    for (int v = 0; v < kVectors; ++v) total[v] += widened<Bytes>(samples + i * kBands + v * kPerDouble);
  Double mean[kVectors];
  for (int v = 0; v < kVectors; ++v) {
    mean[v] = total[v] / static_cast<double>(t);
    store(q.mean + v * kPerDouble, mean[v]);
  }
  Double sum[kVectors] = {};
  std::fill(q.rows.row(0), q.rows.row(0) + kBands, 0.0f);
  for (std::size_t i = 0; i + 1 < static_cast<std::size_t>(job.rows); ++i) {
    const float* sample = samples + (i < t ? i : i - t) * kBands;
    const double position = static_cast<double>(i + 1);
    for (int v = 0; v < kVectors; ++v) {
      sum[v] += widened<Bytes>(sample + v * kPerDouble);
      const auto row = __builtin_convertvector(sum[v] - position * mean[v], typename simd::Simd<Bytes>::HalfFloat);
      store(q.rows.row(i + 1) + v * kPerDouble, row);
    }
  }
}

// Adds the runs of one segment into the sums of kShifts alignments at once (rows[s]: the rows as
// seen under alignment s): the segment's runs are read once for all of them.
template <int Bytes, int kShifts>
__attribute__((always_inline)) inline void accumulate_segment(const RunTable::Segment& segment,
                                                              const RunTable::Run* runs,
                                                              const typename simd::Simd<Bytes>::Float* const* rows,
                                                              AlignmentSums* sums) {
  using Float = typename simd::Simd<Bytes>::Float;
  constexpr int kChunks = 64 / Bytes;  // float vectors per row
  Float* partial[kShifts];
  Float previous[kShifts][kChunks];
  for (int s = 0; s < kShifts; ++s) {
    partial[s] = reinterpret_cast<Float*>(sums[s].partial.data());
    for (int c = 0; c < kChunks; ++c) previous[s][c] = rows[s][segment.start_row * kChunks + c];
  }
  for (std::int32_t r = segment.first; r < segment.last; ++r) {
    const RunTable::Run run = runs[r];
    // Unrolled, so that `previous` stays in registers.
#pragma GCC unroll 2
    for (int s = 0; s < kShifts; ++s) {
      const Float* row = rows[s] + run.end_row * kChunks;
      Float* cell = partial[s] + run.cell_bin * kChunks;
#pragma GCC unroll 4
      for (int c = 0; c < kChunks; ++c) {
        const Float current = row[c];
        cell[c] += current - previous[s][c];
        previous[s][c] = current;
      }
    }
  }
}

// Adds the runs of every segment into the sums of `count` alignments (at most kShiftTile),
// segment by segment, two alignments at a time. Each alignment's float sums take the same values
// in the same order as in a pass of its own, whatever the tile.
template <int Bytes>
__attribute__((always_inline)) inline void accumulate_runs(const RunTable& table,
                                                           const typename simd::Simd<Bytes>::Float* const* rows,
                                                           std::size_t count, AlignmentSums* sums, std::size_t cells) {
  using Double = typename simd::Simd<Bytes>::Double;
  constexpr int kPerDouble = simd::Simd<Bytes>::doubles;
  const RunTable::Run* runs = table.runs.data();
  for (const RunTable::Segment& segment : table.segments) {
    std::size_t s = 0;
    for (; s + 2 <= count; s += 2) accumulate_segment<Bytes, 2>(segment, runs, rows + s, sums + s);
    if (s < count) accumulate_segment<Bytes, 1>(segment, runs, rows + s, sums + s);
    if (segment.flush_after)
      for (s = 0; s < count; ++s) {
        float* floats = sums[s].partial.data();
        double* flushed = sums[s].flushed.data();
        for (std::size_t i = 0; i < cells * kBands; i += kPerDouble)
          store(flushed + i, load<Double>(flushed + i) + widened<Bytes>(floats + i));
        std::fill(floats, floats + cells * kBands, 0.0f);
      }
  }
}

// The MI of every cell of the group from one alignment's sums, written to out[p · n_amp + band]
// (out: the alignment's first cell of the group), and the sums reset to zero for the next one.
//
// The evaluation packs the cells densely: bin_means[b][p · used + band] holds the mean amplitude in
// bin b of every (phase band, amplitude band) cell of the group, so each vector of Bytes / 8 lanes
// evaluates that many cells, whatever the number of bands per group (W1's 10 bands would leave 6
// of 16 lanes idle in a [p][band] layout). The per-lane arithmetic is the same either way.
template <int Bytes>
__attribute__((always_inline)) inline void evaluate(const GroupJob& job, AlignmentSums& sums, double* out) {
  using Double = typename simd::Simd<Bytes>::Double;
  using Int64 = typename simd::Simd<Bytes>::Int64;
  constexpr int kPerDouble = simd::Simd<Bytes>::doubles;
  const RunTable& table = job.table;
  const int bins = job.bins;
  const std::int64_t n_pha = job.series.n_pha;
  const std::int64_t used = job.bands();
  const std::int64_t dense = n_pha * used;
  const std::int64_t stride = job.packed_stride();
  const int used_vectors = static_cast<int>((used + kPerDouble - 1) / kPerDouble);
  auto* bin_means = reinterpret_cast<double*>(job.work.bin_means.data());
  float* partial = sums.partial.data();
  double* flushed = sums.flushed.data();
  // mean_j = S_j / count_j = (Σ ΔQ) / count_j + μ for an occupied bin, 0 for an empty one. Each
  // (p, bin) row is stored whole at its dense place: lanes past `used` hold zeros (zero rows and
  // means) and are overwritten by the next phase band or left as zero padding.
  for (int b = 0; b < bins; ++b)
    for (std::int64_t p = 0; p < n_pha; ++p) {
      const std::size_t cell = static_cast<std::size_t>(p * bins + b);
      double* to = bin_means + b * stride + p * used;
      for (int v = 0; v < used_vectors; ++v) {
        const std::size_t at = cell * kBands + static_cast<std::size_t>(v * kPerDouble);
        Double sum = widened<Bytes>(partial + at);
        if (table.flushes) sum += load<Double>(flushed + at);
        const Double mean = load<Double>(job.work.q.mean + v * kPerDouble);
        store(to + v * kPerDouble, sum * table.inverse_counts[cell] + mean * table.occupied[cell]);
      }
      std::fill(partial + cell * kBands, partial + (cell + 1) * kBands, 0.0f);
      if (table.flushes) std::fill(flushed + cell * kBands, flushed + (cell + 1) * kBands, 0.0);
    }
  const double inv_log_bins = inverse_log_bins(bins);
  for (std::int64_t first = 0; first < dense; first += kPerDouble) {
    const auto* means = reinterpret_cast<const Double*>(bin_means + first);
    double mi[kPerDouble];
    store(mi, tort_mi_from_means<Double, Int64>(means, bins, inv_log_bins, stride / kPerDouble));
    for (std::int64_t lane = 0; lane < std::min<std::int64_t>(kPerDouble, dense - first); ++lane) {
      const std::int64_t p = (first + lane) / used, band = (first + lane) % used;
      out[p * job.series.n_amp + band] = mi[lane];
    }
  }
}

// Every shift of one group of amplitude bands with vectors of Bytes: the detrended rows, then the
// runs accumulated for two shifts per pass and each shift's MI evaluated.
template <int Bytes>
__attribute__((always_inline)) inline void shifted_group(const GroupJob& job) {
  using Float = typename simd::Simd<Bytes>::Float;
  constexpr int kChunks = 64 / Bytes;  // float vectors per row
  detrended_rows<Bytes>(job);
  const auto cells = static_cast<std::size_t>(job.series.n_pha * job.bins);
  GroupWork& work = job.work;
  // Only the tiles' alignments need sums: a one-alignment job (an observed MI, a trial pairing)
  // sizes one.
  const std::size_t tile = std::min(kShiftTile, job.shifts.size());
  for (; work.sums_ready < tile; ++work.sums_ready) {
    work.sums[work.sums_ready].partial.resize(cells);
    work.sums[work.sums_ready].flushed.assign(job.table.flushes ? cells * kBands : 0, 0.0);
  }
  // Rows of the last bin spill up to 16 lanes past their end (zeros, see evaluate).
  work.bin_means.resize(static_cast<std::size_t>((job.bins * job.packed_stride() + kBands) / kMaxDoubles));
  const auto* rows = reinterpret_cast<const Float*>(work.q.rows.data());
  const auto out_of = [&](std::size_t k) {
    return job.out + static_cast<std::int64_t>(k) * job.series.n_pha * job.series.n_amp + job.first_band;
  };
  // The alignments in order of their shift, kShiftTile at a time.
  std::vector<std::size_t> order(job.shifts.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return job.shifts[a] < job.shifts[b]; });
  for (std::size_t first = 0; first < order.size(); first += kShiftTile) {
    // One load of a flag per tile of shifts, each of which adds every run of the series.
    if (job.stop.stop_requested()) throw RunCancelled(-1);
    const std::size_t count = std::min(kShiftTile, order.size() - first);
    const Float* shifted[kShiftTile];
    for (std::size_t i = 0; i < count; ++i) shifted[i] = rows + job.shifts[order[first + i]] * kChunks;
    accumulate_runs<Bytes>(job.table, shifted, count, work.sums, cells);
    for (std::size_t i = 0; i < count; ++i) evaluate<Bytes>(job, work.sums[i], out_of(order[first + i]));
  }
}

PACFLOW_TARGET_64 void shifted_group_64(const GroupJob& job) { shifted_group<64>(job); }
PACFLOW_TARGET_32 void shifted_group_32(const GroupJob& job) { shifted_group<32>(job); }
void shifted_group_16(const GroupJob& job) { shifted_group<16>(job); }

void shifted_until_stopped(const SeriesBands& series, int bins, std::span<const ShiftedAmplitude> amplitudes,
                           int simd_bytes, const std::stop_token& stop) {
  const int width = simd_bytes == 0 ? simd::simd_width() : simd_bytes;
  if (width != 16 && width != 32 && width != 64)
    throw std::invalid_argument("shifted_modulation_index: vector width must be 16, 32 or 64 bytes");
  const auto kernel = width == 64 ? shifted_group_64 : (width == 32 ? shifted_group_32 : shifted_group_16);
  const RunTable table = make_run_table(series, bins, width);
  const std::int64_t groups = (series.n_amp + kBands - 1) / kBands;
  const auto jobs = static_cast<std::int64_t>(amplitudes.size()) * groups;
  oneapi::tbb::enumerable_thread_specific<GroupWork> works;
  oneapi::tbb::parallel_for(std::int64_t{0}, jobs, [&](std::int64_t job) {
    const ShiftedAmplitude& amplitude = amplitudes[static_cast<std::size_t>(job / groups)];
    const std::span<const std::int64_t> shifts = amplitude.shifts;
    const std::int64_t rows =
        series.length + 1 + (shifts.empty() ? 0 : *std::max_element(shifts.begin(), shifts.end()));
    SeriesBands bands = series;
    bands.amplitude = amplitude.amplitude;
    kernel({bands, table, shifts, bins, job % groups * kBands, rows, works.local(), amplitude.out, stop});
  });
  // A group that saw the stop may have thrown into an already cancelled task group, which drops it.
  if (stop.stop_requested()) throw RunCancelled(-1);
}

}  // namespace

void shifted_modulation_index(const SeriesBands& series, int bins, std::span<const std::int64_t> shifts, double* out,
                              int simd_bytes) {
  const ShiftedAmplitude only{series.amplitude, shifts, out};
  shifted_until_stopped(series, bins, {&only, 1}, simd_bytes, {});
}

void shifted_modulation_index(const SeriesBands& series, int bins, std::span<const std::int64_t> shifts, double* out,
                              const std::stop_token& stop) {
  const ShiftedAmplitude only{series.amplitude, shifts, out};
  shifted_until_stopped(series, bins, {&only, 1}, 0, stop);
}

void shifted_modulation_indices(const SeriesBands& series, int bins, std::span<const ShiftedAmplitude> amplitudes,
                                const std::stop_token& stop, int simd_bytes) {
  shifted_until_stopped(series, bins, amplitudes, simd_bytes, stop);
}

}  // namespace pacflow::mi
