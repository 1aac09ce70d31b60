#include "stages/kernels/pac/shifted_mi.hpp"

#include <algorithm>
#include <map>
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

// A thread's buffers, kept from one job to the next of a call (its jobs share the series' shape:
// the same cells, bins and length): the sums are left at zero by each evaluation, and the lanes of
// by_time past a group's bands stay zero.
struct GroupWork {
  DetrendedRows q;
  simd::FloatRows by_time;  // [time][16]: the group's amplitudes, transposed
  std::int64_t by_time_lanes = 0;  // lanes of by_time written so far
  AlignmentSums sums[kShiftTile];
  std::size_t sums_ready = 0;  // sums sized for the run table and zero
  simd::FloatRows bin_means;   // [bin][dense] doubles: mean amplitude per bin of every (p, band) cell
};

// What every job of a call shares: the series' shape, the bins and the stop.
struct CallShape {
  std::int64_t n_pha;
  std::int64_t n_amp;
  std::int64_t length;
  int bins;
  const std::stop_token& stop;
};

// One band group's work on one thread: the shape, the group, the phase's run table (null while
// only detrended rows are built) and the thread's buffers.
struct GroupJob {
  const CallShape& call;
  const RunTable* table;
  std::int64_t first_band;
  GroupWork& work;

  std::int64_t bands() const { return std::min<std::int64_t>(kBands, call.n_amp - first_band); }
  // Doubles per bin in the packed bin means: one per (phase band, amplitude band) cell, rounded up
  // to whole vectors of the widest width.
  std::int64_t packed_stride() const { return (call.n_pha * bands() + kMaxDoubles - 1) / kMaxDoubles * kMaxDoubles; }
};

// One alignment of a tile: the detrended rows of its amplitude's group, its shift and where its
// values go (the alignment's cell of the group's first band).
struct Alignment {
  const DetrendedRows* q;
  std::int64_t shift;
  double* out;
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
__attribute__((always_inline)) inline void detrended_rows(const GroupJob& job, const float* amplitude,
                                                          std::int64_t rows, DetrendedRows& q) {
  using Double = typename simd::Simd<Bytes>::Double;
  constexpr int kPerDouble = simd::Simd<Bytes>::doubles;
  constexpr int kVectors = kBands / kPerDouble;
  const auto t = static_cast<std::size_t>(job.call.length);
  const std::int64_t used = job.bands();
  q.rows.resize(static_cast<std::size_t>(rows));
  simd::FloatRows& by_time = job.work.by_time;
  by_time.resize(t);
  if (job.work.by_time_lanes > used)  // a fuller group came before: its extra lanes back to zero
    for (std::size_t i = 0; i < t; ++i) std::fill(by_time.row(i) + used, by_time.row(i) + job.work.by_time_lanes, 0.0f);
  job.work.by_time_lanes = used;
  // In tiles of 64 samples (4 KiB of rows), so the scattered stores stay in L1.
  for (std::size_t tile = 0; tile < t; tile += 64)
    for (std::int64_t lane = 0; lane < used; ++lane) {
      const float* a = amplitude + static_cast<std::size_t>(job.first_band + lane) * t;
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
  for (std::size_t i = 0; i + 1 < static_cast<std::size_t>(rows); ++i) {
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
__attribute__((always_inline)) inline void evaluate(const GroupJob& job, AlignmentSums& sums, const double* amplitude_mean,
                                                    double* out) {
  using Double = typename simd::Simd<Bytes>::Double;
  using Int64 = typename simd::Simd<Bytes>::Int64;
  constexpr int kPerDouble = simd::Simd<Bytes>::doubles;
  const RunTable& table = *job.table;
  const int bins = job.call.bins;
  const std::int64_t n_pha = job.call.n_pha;
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
        const Double mean = load<Double>(amplitude_mean + v * kPerDouble);
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
      out[p * job.call.n_amp + band] = mi[lane];
    }
  }
}

// Sizes the thread's sums for `count` alignments of the call's cells, and its packed bin means.
inline void ready_sums(const GroupJob& job, std::size_t count) {
  const auto cells = static_cast<std::size_t>(job.call.n_pha * job.call.bins);
  GroupWork& work = job.work;
  for (; work.sums_ready < count; ++work.sums_ready) {
    work.sums[work.sums_ready].partial.resize(cells);
    work.sums[work.sums_ready].flushed.assign(job.table->flushes ? cells * kBands : 0, 0.0);
  }
  // Rows of the last bin spill up to 16 lanes past their end (zeros, see evaluate).
  work.bin_means.resize(static_cast<std::size_t>((job.call.bins * job.packed_stride() + kBands) / kMaxDoubles));
}

// Up to kShiftTile alignments accumulated together, pass by pass over the job's run table, then the
// MI of each written.
template <int Bytes>
__attribute__((always_inline)) inline void tile_alignments(const GroupJob& job, std::span<const Alignment> alignments) {
  using Float = typename simd::Simd<Bytes>::Float;
  constexpr int kChunks = 64 / Bytes;  // float vectors per row
  const Float* shifted[kShiftTile];
  for (std::size_t i = 0; i < alignments.size(); ++i)
    shifted[i] = reinterpret_cast<const Float*>(alignments[i].q->rows.data()) + alignments[i].shift * kChunks;
  const auto cells = static_cast<std::size_t>(job.call.n_pha * job.call.bins);
  accumulate_runs<Bytes>(*job.table, shifted, alignments.size(), job.work.sums, cells);
  for (std::size_t i = 0; i < alignments.size(); ++i)
    evaluate<Bytes>(job, job.work.sums[i], alignments[i].q->mean, alignments[i].out);
}

// The detrended rows one amplitude's jobs need: T + its largest shift + 1.
std::int64_t rows_needed(std::int64_t length, std::span<const std::int64_t> shifts) {
  return length + 1 + (shifts.empty() ? 0 : *std::max_element(shifts.begin(), shifts.end()));
}

// Every shift of one amplitude in one band group: its detrended rows (unless `shared` holds them),
// then the alignments in order of their shift, kShiftTile at a time.
template <int Bytes>
__attribute__((always_inline)) inline void shifted_group(const GroupJob& job, const ShiftedAmplitude& amplitude,
                                                         const DetrendedRows* shared) {
  const std::span<const std::int64_t> shifts = amplitude.shifts;
  if (!shared) detrended_rows<Bytes>(job, amplitude.amplitude, rows_needed(job.call.length, shifts), job.work.q);
  const DetrendedRows* q = shared ? shared : &job.work.q;
  ready_sums(job, std::min(kShiftTile, shifts.size()));
  const std::int64_t per_alignment = job.call.n_pha * job.call.n_amp;
  std::vector<std::size_t> order(shifts.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return shifts[a] < shifts[b]; });
  for (std::size_t first = 0; first < order.size(); first += kShiftTile) {
    // One load of a flag per tile of shifts, each of which adds every run of the series.
    if (job.call.stop.stop_requested()) throw RunCancelled(-1);
    const std::size_t count = std::min(kShiftTile, order.size() - first);
    Alignment tile[kShiftTile];
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t k = order[first + i];
      tile[i] = {q, shifts[k], amplitude.out + static_cast<std::int64_t>(k) * per_alignment + job.first_band};
    }
    tile_alignments<Bytes>(job, {tile, count});
  }
}

// Alignments of several amplitudes (their rows built beforehand) against the job's phase, in one tile.
template <int Bytes>
__attribute__((always_inline)) inline void aligned_group(const GroupJob& job, std::span<const Alignment> alignments) {
  if (job.call.stop.stop_requested()) throw RunCancelled(-1);
  ready_sums(job, alignments.size());
  tile_alignments<Bytes>(job, alignments);
}

// The kernels for one vector width (0 picks the widest this CPU has), each compiled for its
// instruction set.
struct WidthKernels {
  int width;
  void (*rows)(const GroupJob&, const float*, std::int64_t, DetrendedRows&);
  void (*shifts)(const GroupJob&, const ShiftedAmplitude&, const DetrendedRows*);
  void (*tile)(const GroupJob&, std::span<const Alignment>);
};

PACFLOW_TARGET_64 void rows_64(const GroupJob& j, const float* a, std::int64_t r, DetrendedRows& q) {
  detrended_rows<64>(j, a, r, q);
}
PACFLOW_TARGET_32 void rows_32(const GroupJob& j, const float* a, std::int64_t r, DetrendedRows& q) {
  detrended_rows<32>(j, a, r, q);
}
void rows_16(const GroupJob& j, const float* a, std::int64_t r, DetrendedRows& q) { detrended_rows<16>(j, a, r, q); }
PACFLOW_TARGET_64 void shifted_group_64(const GroupJob& j, const ShiftedAmplitude& a, const DetrendedRows* q) {
  shifted_group<64>(j, a, q);
}
PACFLOW_TARGET_32 void shifted_group_32(const GroupJob& j, const ShiftedAmplitude& a, const DetrendedRows* q) {
  shifted_group<32>(j, a, q);
}
void shifted_group_16(const GroupJob& j, const ShiftedAmplitude& a, const DetrendedRows* q) {
  shifted_group<16>(j, a, q);
}
PACFLOW_TARGET_64 void aligned_group_64(const GroupJob& j, std::span<const Alignment> a) { aligned_group<64>(j, a); }
PACFLOW_TARGET_32 void aligned_group_32(const GroupJob& j, std::span<const Alignment> a) { aligned_group<32>(j, a); }
void aligned_group_16(const GroupJob& j, std::span<const Alignment> a) { aligned_group<16>(j, a); }

WidthKernels kernels_for(int simd_bytes) {
  const int width = simd::width_or_widest(simd_bytes);
  switch (width) {
    case 64: return {64, rows_64, shifted_group_64, aligned_group_64};
    case 32: return {32, rows_32, shifted_group_32, aligned_group_32};
    case 16: return {16, rows_16, shifted_group_16, aligned_group_16};
    default: throw std::invalid_argument("shifted_modulation_index: vector width must be 16, 32 or 64 bytes");
  }
}

// Amplitudes that several jobs of a call align (the trial-level test's: each epoch's amplitude
// with every phase of its block) get their detrended rows built once, when all of those fit in
// this many bytes; otherwise each job builds its own on its thread, as a lone amplitude's do.
constexpr double kSharedRowsBytes = 32.0 * 1024 * 1024;

double row_bytes(std::int64_t rows, std::int64_t groups) {
  return static_cast<double>(rows * groups) * sizeof(float) * kBands;
}

// The distinct amplitudes of a call, and which of them have their rows built once for all.
class AmplitudeSources {
 public:
  AmplitudeSources(std::span<const ShiftedAmplitude> amplitudes, std::int64_t length, std::int64_t groups) {
    std::map<const float*, std::size_t> index;
    for (const ShiftedAmplitude& a : amplitudes) {
      if (a.shifts.empty()) {
        source_of_.push_back(kNone);
        continue;
      }
      const auto [at, added] = index.try_emplace(a.amplitude, sources_.size());
      if (added) sources_.push_back({a.amplitude, 0, 0, kNone});
      Source& source = sources_[at->second];
      source.rows = std::max(source.rows, rows_needed(length, a.shifts));
      ++source.uses;
      source_of_.push_back(at->second);
    }
    double bytes = 0;
    for (const Source& s : sources_)
      if (s.uses > 1) bytes += row_bytes(s.rows, groups);
    if (bytes > kSharedRowsBytes) return;
    for (std::size_t s = 0; s < sources_.size(); ++s)
      if (sources_[s].uses > 1) {
        sources_[s].shared = shared_.size();
        shared_.push_back(s);
      }
  }

  // The amplitudes whose rows are built once, each for `groups` band groups.
  std::size_t shared_count() const { return shared_.size(); }
  const float* shared_amplitude(std::size_t k) const { return sources_[shared_[k]].amplitude; }
  std::int64_t shared_rows(std::size_t k) const { return sources_[shared_[k]].rows; }
  // Job j's place among the shared amplitudes, or kNone (no shifts, or its rows are its own).
  std::size_t shared_of(std::size_t j) const {
    return source_of_[j] == kNone ? kNone : sources_[source_of_[j]].shared;
  }
  bool evaluated(std::size_t j) const { return source_of_[j] != kNone; }

  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

 private:
  struct Source {
    const float* amplitude;
    std::int64_t rows;
    std::size_t uses;
    std::size_t shared;
  };
  std::vector<Source> sources_;
  std::vector<std::size_t> source_of_;  // per job
  std::vector<std::size_t> shared_;     // sources with shared rows
};

// Single alignments of different amplitudes against one phase (a row's trial-level pairings),
// accumulated together: one pass over the phase's runs for all of them. Each reads rows of its own
// where a tile of shifts reads a window of one amplitude's; tiles of 2, 4 and 8 ran alike on W1.
constexpr std::size_t kAmplitudeTile = 8;
static_assert(kAmplitudeTile <= kShiftTile, "a thread holds the sums of kShiftTile alignments");

// The units of parallel work of a call, each for every band group: one amplitude's shifts, or a
// tile of single alignments of shared amplitudes against one phase (the trial-level pairings).
struct CallTask {
  std::size_t phase;
  std::size_t first;  // shifts: the job; tile: its first place in `tiled`
  std::size_t count;  // 0 for shifts
};

std::vector<CallTask> plan_tasks(std::span<const ShiftedAmplitude> amplitudes, const AmplitudeSources& sources,
                                 std::size_t phases, std::vector<std::size_t>& tiled) {
  std::vector<CallTask> tasks;
  std::vector<std::vector<std::size_t>> singles(phases);
  for (std::size_t j = 0; j < amplitudes.size(); ++j) {
    if (!sources.evaluated(j)) continue;
    if (amplitudes[j].shifts.size() == 1 && sources.shared_of(j) != AmplitudeSources::kNone)
      singles[amplitudes[j].phase].push_back(j);
    else
      tasks.push_back({amplitudes[j].phase, j, 0});
  }
  for (std::size_t p = 0; p < phases; ++p)
    for (std::size_t first = 0; first < singles[p].size(); first += kAmplitudeTile) {
      const std::size_t count = std::min(kAmplitudeTile, singles[p].size() - first);
      tasks.push_back({p, tiled.size(), count});
      tiled.insert(tiled.end(), singles[p].begin() + static_cast<std::ptrdiff_t>(first),
                   singles[p].begin() + static_cast<std::ptrdiff_t>(first + count));
    }
  return tasks;
}

void check_call(std::span<const SeriesBands> phases, std::span<const ShiftedAmplitude> amplitudes) {
  for (const SeriesBands& p : phases)
    if (p.n_pha != phases.front().n_pha || p.n_amp != phases.front().n_amp || p.length != phases.front().length)
      throw std::invalid_argument("shifted_modulation_indices: every phase series must have the same shape");
  for (const ShiftedAmplitude& a : amplitudes)
    if (a.phase >= phases.size())
      throw std::invalid_argument("shifted_modulation_indices: an amplitude names a phase series the call lacks");
}

void shifted_until_stopped(std::span<const SeriesBands> phases, int bins, std::span<const ShiftedAmplitude> amplitudes,
                           int simd_bytes, const std::stop_token& stop) {
  const WidthKernels kernels = kernels_for(simd_bytes);
  check_call(phases, amplitudes);
  if (amplitudes.empty()) return;
  const SeriesBands& shape = phases.front();
  const CallShape call{shape.n_pha, shape.n_amp, shape.length, bins, stop};
  std::vector<RunTable> tables(phases.size());
  oneapi::tbb::parallel_for(std::size_t{0}, phases.size(),
                            [&](std::size_t p) { tables[p] = make_run_table(phases[p], bins, kernels.width); });
  const std::int64_t groups = (call.n_amp + kBands - 1) / kBands;
  const AmplitudeSources sources(amplitudes, call.length, groups);
  oneapi::tbb::enumerable_thread_specific<GroupWork> works;
  std::vector<DetrendedRows> shared(sources.shared_count() * static_cast<std::size_t>(groups));
  const auto shared_rows = [&](std::size_t k, std::int64_t group) -> DetrendedRows& {
    return shared[k * static_cast<std::size_t>(groups) + static_cast<std::size_t>(group)];
  };
  oneapi::tbb::parallel_for(std::size_t{0}, shared.size(), [&](std::size_t i) {
    const std::size_t k = i / static_cast<std::size_t>(groups);
    const auto group = static_cast<std::int64_t>(i % static_cast<std::size_t>(groups));
    kernels.rows({call, nullptr, group * kBands, works.local()}, sources.shared_amplitude(k), sources.shared_rows(k),
                 shared_rows(k, group));
  });
  std::vector<std::size_t> tiled;
  const std::vector<CallTask> tasks = plan_tasks(amplitudes, sources, phases.size(), tiled);
  oneapi::tbb::parallel_for(std::size_t{0}, tasks.size() * static_cast<std::size_t>(groups), [&](std::size_t i) {
    const CallTask& task = tasks[i / static_cast<std::size_t>(groups)];
    const auto group = static_cast<std::int64_t>(i % static_cast<std::size_t>(groups));
    const GroupJob job{call, &tables[task.phase], group * kBands, works.local()};
    if (task.count == 0) {
      const std::size_t k = sources.shared_of(task.first);
      kernels.shifts(job, amplitudes[task.first], k == AmplitudeSources::kNone ? nullptr : &shared_rows(k, group));
      return;
    }
    Alignment tile[kAmplitudeTile];
    for (std::size_t a = 0; a < task.count; ++a) {
      const ShiftedAmplitude& amplitude = amplitudes[tiled[task.first + a]];
      tile[a] = {&shared_rows(sources.shared_of(tiled[task.first + a]), group), amplitude.shifts.front(),
                 amplitude.out + job.first_band};
    }
    kernels.tile(job, {tile, task.count});
  });
  // A group that saw the stop may have thrown into an already cancelled task group, which drops it.
  if (stop.stop_requested()) throw RunCancelled(-1);
}

}  // namespace

void shifted_modulation_index(const SeriesBands& series, int bins, std::span<const std::int64_t> shifts, double* out,
                              int simd_bytes) {
  const ShiftedAmplitude only{series.amplitude, shifts, out};
  shifted_until_stopped({&series, 1}, bins, {&only, 1}, simd_bytes, {});
}

void shifted_modulation_index(const SeriesBands& series, int bins, std::span<const std::int64_t> shifts, double* out,
                              const std::stop_token& stop) {
  const ShiftedAmplitude only{series.amplitude, shifts, out};
  shifted_until_stopped({&series, 1}, bins, {&only, 1}, 0, stop);
}

void shifted_modulation_indices(std::span<const SeriesBands> phases, int bins,
                                std::span<const ShiftedAmplitude> amplitudes, const std::stop_token& stop,
                                int simd_bytes) {
  shifted_until_stopped(phases, bins, amplitudes, simd_bytes, stop);
}

double shared_rows_bytes(std::int64_t amplitudes, std::int64_t n_amp, std::int64_t rows) {
  const double bytes = static_cast<double>(amplitudes) * row_bytes(rows, (n_amp + kBands - 1) / kBands);
  return bytes > kSharedRowsBytes ? 0.0 : bytes;
}

}  // namespace pacflow::mi
