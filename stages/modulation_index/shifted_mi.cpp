#include "stages/modulation_index/shifted_mi.hpp"

#include <algorithm>
#include <cstring>
#include <oneapi/tbb/parallel_for.h>
#include <stdexcept>
#include <vector>

#include "stages/common/lanes.hpp"
#include "stages/modulation_index/mi_math.hpp"

namespace pacflow::mi {

namespace {

constexpr int kBands = simd::FloatRows::kFloats;  // amplitude bands per group: one 64-byte row
constexpr std::int32_t kBlock = 256;                // samples per time block: 256 rows are 16 KiB
constexpr std::int32_t kFlushBlocks = 16;           // float sums go into double every 4096 samples

// Runs of equal phase bin of every phase band, ordered by (time block, phase band). A segment is
// the runs of one phase band that start in one block; a run may end past its block, which is fine
// because rows are read wherever a run ends.
struct RunTable {
  struct Segment {
    std::int32_t start_row;  // first sample of the segment's first run
    std::int32_t first;      // runs [first, last)
    std::int32_t last;
    bool flush_after;        // move the float sums into the double ones after this segment
  };
  std::vector<Segment> segments;
  std::vector<std::int32_t> end_row;   // one past each run's last sample
  std::vector<std::int32_t> cell_bin;  // p · bins + bin: the run's accumulator
  std::vector<double> inverse_counts;  // [p][bin]: 1 / count, 0 for an empty bin
  std::vector<double> occupied;        // [p][bin]: 1 for a bin with samples, else 0
  bool flushes = false;                // some segment flushes before the end (series > 4096 samples)
};

RunTable make_run_table(const SeriesBands& series, int bins) {
  const auto t = static_cast<std::int32_t>(series.length);
  const auto n_pha = static_cast<std::size_t>(series.n_pha);
  const auto cells = n_pha * static_cast<std::size_t>(bins);
  std::vector<std::vector<std::int32_t>> ends(n_pha), run_cells(n_pha);  // per phase band, in time order
  std::vector<std::int64_t> counts(cells, 0);
  std::vector<std::int32_t> sample_bins(static_cast<std::size_t>(t));
  for (std::size_t p = 0; p < n_pha; ++p) {
    const float* phase = series.phase + p * static_cast<std::size_t>(t);
    for (std::int32_t i = 0; i < t; ++i) sample_bins[static_cast<std::size_t>(i)] = phase_bin(phase[i], bins);
    ends[p].reserve(static_cast<std::size_t>(t));
    run_cells[p].reserve(static_cast<std::size_t>(t));
    int bin = sample_bins[0];
    std::int32_t start = 0;
    for (std::int32_t i = 1; i <= t; ++i) {
      const int next = i < t ? sample_bins[static_cast<std::size_t>(i)] : -1;
      if (next == bin) continue;
      const auto cell = static_cast<std::int32_t>(p) * bins + bin;
      ends[p].push_back(i);
      run_cells[p].push_back(cell);
      counts[static_cast<std::size_t>(cell)] += i - start;
      start = i;
      bin = next;
    }
  }
  RunTable table;
  table.end_row.reserve(n_pha * static_cast<std::size_t>(t));
  table.cell_bin.reserve(n_pha * static_cast<std::size_t>(t));
  for (std::int64_t count : counts) {
    table.inverse_counts.push_back(inverse_count(count));
    table.occupied.push_back(count > 0 ? 1.0 : 0.0);
  }
  std::vector<std::size_t> next(n_pha, 0);  // per phase band: first run not yet placed
  const auto start_of = [&](std::size_t p, std::size_t r) { return r == 0 ? 0 : ends[p][r - 1]; };
  for (std::int32_t block = 1;; ++block) {
    const std::int32_t block_end = block * kBlock;
    for (std::size_t p = 0; p < n_pha; ++p) {
      RunTable::Segment segment{start_of(p, next[p]), static_cast<std::int32_t>(table.end_row.size()), 0, false};
      for (; next[p] < ends[p].size() && start_of(p, next[p]) < block_end; ++next[p]) {
        table.end_row.push_back(ends[p][next[p]]);
        table.cell_bin.push_back(run_cells[p][next[p]]);
      }
      segment.last = static_cast<std::int32_t>(table.end_row.size());
      if (segment.last > segment.first) table.segments.push_back(segment);
    }
    // The float sums of the last stretch are read directly by the evaluation, not flushed.
    if (block_end >= t) break;
    if (block % kFlushBlocks == 0 && !table.segments.empty()) table.flushes = table.segments.back().flush_after = true;
  }
  return table;
}

// One group of up to 16 amplitude bands as float rows Q[i] = P[i] − i·μ for i in [0, 2T], where
// P[i] = Σ_{t<i} A[t mod T] (summed in double) and μ the band's mean amplitude. A run's amplitude
// sum is then Q[e] − Q[a] + (e − a)·μ, and the (e − a)·μ part, summed over a bin, is count·μ: added
// exactly at the end. Removing the trend keeps Q small (it only follows the amplitude's deviations
// from its mean), so float rows lose nothing that matters (≈1e-7 relative on the MI, tested), and
// 16 bands fit one 64-byte row.
struct DetrendedRows {
  simd::FloatRows rows;
  alignas(64) double mean[kBands] = {};
};

void detrended_rows(const SeriesBands& series, std::int64_t first, DetrendedRows& out) {
  const auto t = static_cast<std::size_t>(series.length);
  out.rows.resize(2 * t + 1);
  const std::int64_t used = std::min<std::int64_t>(kBands, series.n_amp - first);
  for (std::int64_t lane = 0; lane < used; ++lane) {
    const float* a = series.amplitude + static_cast<std::size_t>(first + lane) * t;
    double total = 0;
    for (std::size_t i = 0; i < t; ++i) total += static_cast<double>(a[i]);
    const double mu = total / static_cast<double>(t);
    out.mean[lane] = mu;
    double sum = 0;
    for (std::size_t i = 0; i < 2 * t; ++i) {
      sum += static_cast<double>(a[i < t ? i : i - t]);
      out.rows.row(i + 1)[lane] = static_cast<float>(sum - static_cast<double>(i + 1) * mu);
    }
  }
}

struct GroupWork {
  float* partial;  // [cell][16]: float sums since the last flush
  double* sums;    // [cell][16]: double sums
  double* means;   // [bin][lanes of one double vector]
};

struct GroupJob {
  const DetrendedRows& q;
  const RunTable& table;
  std::span<const std::int64_t> shifts;
  int bins;
  std::int64_t n_pha;
  std::int64_t n_amp;
  std::int64_t first_band;
  GroupWork work;
  double* out;
};

// Bytes / 8 floats starting at `from`, widened to a vector of doubles of width Bytes.
template <int Bytes>
__attribute__((always_inline)) inline typename simd::Simd<Bytes>::Double widened(const float* from) {
  typename simd::Simd<Bytes>::HalfFloat half;
  std::memcpy(&half, from, sizeof(half));
  return __builtin_convertvector(half, typename simd::Simd<Bytes>::Double);
}

// Every shift of one group of amplitude bands with vectors of Bytes: accumulate the runs, then
// evaluate the MI of each cell from its bin means, Bytes / 8 cells per vector.
template <int Bytes>
__attribute__((always_inline)) inline void shifted_group(const GroupJob& job) {
  using Float = typename simd::Simd<Bytes>::Float;
  using Double = typename simd::Simd<Bytes>::Double;
  using Int64 = typename simd::Simd<Bytes>::Int64;
  constexpr int kChunks = 64 / Bytes;                // float vectors per row
  constexpr int kPerDouble = simd::Simd<Bytes>::doubles;
  const RunTable& table = job.table;
  const int bins = job.bins;
  const auto cells = static_cast<std::size_t>(job.n_pha * bins);
  const std::int64_t used = std::min<std::int64_t>(kBands, job.n_amp - job.first_band);
  const double inv_log_bins = inverse_log_bins(bins);
  const std::int32_t* end_row = table.end_row.data();
  const std::int32_t* cell_bin = table.cell_bin.data();
  auto* partial = reinterpret_cast<Float*>(job.work.partial);
  auto* means = reinterpret_cast<Double*>(job.work.means);
  for (std::size_t k = 0; k < job.shifts.size(); ++k) {
    const Float* rows = reinterpret_cast<const Float*>(job.q.rows.data()) + job.shifts[k] * kChunks;
    std::fill(job.work.partial, job.work.partial + cells * kBands, 0.0f);
    if (table.flushes) std::fill(job.work.sums, job.work.sums + cells * kBands, 0.0);
    for (const RunTable::Segment& segment : table.segments) {
      Float previous[kChunks];
      for (int c = 0; c < kChunks; ++c) previous[c] = rows[segment.start_row * kChunks + c];
      for (std::int32_t r = segment.first; r < segment.last; ++r) {
        const Float* row = rows + end_row[r] * kChunks;
        Float* cell = partial + cell_bin[r] * kChunks;
        for (int c = 0; c < kChunks; ++c) {
          const Float current = row[c];
          cell[c] += current - previous[c];
          previous[c] = current;
        }
      }
      if (segment.flush_after) {
        for (std::size_t i = 0; i < cells * kBands; i += kPerDouble) {
          Double sum;
          std::memcpy(&sum, job.work.sums + i, sizeof(sum));
          sum += widened<Bytes>(job.work.partial + i);
          std::memcpy(job.work.sums + i, &sum, sizeof(sum));
        }
        std::fill(job.work.partial, job.work.partial + cells * kBands, 0.0f);
      }
    }
    for (std::int64_t p = 0; p < job.n_pha; ++p) {
      const double* inverse_counts = table.inverse_counts.data() + p * bins;
      const double* occupied = table.occupied.data() + p * bins;
      double* out = job.out + (static_cast<std::int64_t>(k) * job.n_pha + p) * job.n_amp + job.first_band;
      for (std::int64_t band = 0; band < used; band += kPerDouble) {
        Double mean;
        std::memcpy(&mean, job.q.mean + band, sizeof(mean));
        // mean_j = S_j / count_j = (Σ ΔQ) / count_j + μ for an occupied bin, 0 for an empty one.
        for (int b = 0; b < bins; ++b) {
          const std::size_t at = static_cast<std::size_t>(p * bins + b) * kBands + static_cast<std::size_t>(band);
          Double sum = widened<Bytes>(job.work.partial + at);
          if (table.flushes) {
            Double flushed;
            std::memcpy(&flushed, job.work.sums + at, sizeof(flushed));
            sum += flushed;
          }
          means[b] = sum * inverse_counts[b] + mean * occupied[b];
        }
        const Double mi = tort_mi_from_means<Double, Int64>(means, bins, inv_log_bins);
        for (std::int64_t lane = 0; lane < std::min<std::int64_t>(kPerDouble, used - band); ++lane)
          out[band + lane] = mi[lane];
      }
    }
  }
}

PACFLOW_TARGET_64 void shifted_group_64(const GroupJob& job) { shifted_group<64>(job); }
PACFLOW_TARGET_32 void shifted_group_32(const GroupJob& job) { shifted_group<32>(job); }
void shifted_group_16(const GroupJob& job) { shifted_group<16>(job); }

}  // namespace

void shifted_modulation_index(const SeriesBands& series, int bins, std::span<const std::int64_t> shifts, double* out,
                              int simd_bytes) {
  const int width = simd_bytes == 0 ? simd::simd_width() : simd_bytes;
  if (width != 16 && width != 32 && width != 64)
    throw std::invalid_argument("shifted_modulation_index: vector width must be 16, 32 or 64 bytes");
  const auto kernel = width == 64 ? shifted_group_64 : (width == 32 ? shifted_group_32 : shifted_group_16);
  const RunTable table = make_run_table(series, bins);
  const std::int64_t groups = (series.n_amp + kBands - 1) / kBands;
  const auto cells = static_cast<std::size_t>(series.n_pha * bins);
  oneapi::tbb::parallel_for(std::int64_t{0}, groups, [&](std::int64_t group) {
    DetrendedRows q;
    detrended_rows(series, group * kBands, q);
    simd::FloatRows partial(cells);
    std::vector<double> sums(table.flushes ? cells * kBands : 0);
    simd::FloatRows means(static_cast<std::size_t>(bins));  // 64 bytes per bin: room for any width
    kernel({q, table, shifts, bins, series.n_pha, series.n_amp, group * kBands,
            {partial.data(), sums.data(), reinterpret_cast<double*>(means.data())}, out});
  });
}

}  // namespace pacflow::mi
