#include "stages/kernels/pac/run_table.hpp"

#include "stages/kernels/pac/phase_bins.hpp"

namespace pacflow::mi {

namespace {

PACFLOW_TARGET_64 void phase_bins_64(const float* phase, std::int64_t n, int bins, std::int32_t* out) {
  phase_bins<64>(phase, n, bins, out);
}
PACFLOW_TARGET_32 void phase_bins_32(const float* phase, std::int64_t n, int bins, std::int32_t* out) {
  phase_bins<32>(phase, n, bins, out);
}
void phase_bins_16(const float* phase, std::int64_t n, int bins, std::int32_t* out) { phase_bins<16>(phase, n, bins, out); }

// The runs of one phase band in time order (bins given per sample), and the samples per bin added
// to counts[bin].
void runs_of_band(const std::int32_t* bin_of, std::int32_t t, std::int32_t cell_base, std::vector<RunTable::Run>& runs,
                  std::int64_t* counts) {
  // A run ends wherever the next sample's bin differs: a run is written at every sample and kept
  // only there, with no branch to mispredict on the irregular run lengths.
  runs.resize(static_cast<std::size_t>(t));
  std::size_t n = 0;
  for (std::int32_t i = 1; i < t; ++i) {
    const std::int32_t bin = bin_of[i - 1];
    runs[n] = {i, cell_base + bin};
    n += bin_of[i] != bin ? 1 : 0;
  }
  runs[n++] = {t, cell_base + bin_of[t - 1]};
  runs.resize(n);
  std::int32_t start = 0;
  for (const RunTable::Run& run : runs) {
    counts[run.cell_bin - cell_base] += run.end_row - start;
    start = run.end_row;
  }
}

}  // namespace

RunTable make_run_table(const SeriesBands& series, int bins, int simd_bytes) {
  const auto bin_phases = simd_bytes == 64 ? phase_bins_64 : (simd_bytes == 32 ? phase_bins_32 : phase_bins_16);
  const auto t = static_cast<std::int32_t>(series.length);
  const auto n_pha = static_cast<std::size_t>(series.n_pha);
  std::vector<std::vector<RunTable::Run>> band_runs(n_pha);  // per phase band, in time order
  std::vector<std::int64_t> counts(n_pha * static_cast<std::size_t>(bins), 0);
  std::vector<std::int32_t> bin_of(static_cast<std::size_t>(t));
  std::size_t total = 0;
  for (std::size_t p = 0; p < n_pha; ++p) {
    bin_phases(series.phase + p * static_cast<std::size_t>(t), t, bins, bin_of.data());
    runs_of_band(bin_of.data(), t, static_cast<std::int32_t>(p) * bins, band_runs[p],
                 counts.data() + p * static_cast<std::size_t>(bins));
    total += band_runs[p].size();
  }
  RunTable table;
  table.runs.reserve(total);
  table.inverse_counts.reserve(counts.size());
  table.occupied.reserve(counts.size());
  for (std::int64_t count : counts) {
    table.inverse_counts.push_back(inverse_count(count));
    table.occupied.push_back(count > 0 ? 1.0 : 0.0);
  }
  std::vector<std::size_t> next(n_pha, 0);  // per phase band: first run not yet placed
  const auto start_of = [&](std::size_t p, std::size_t r) { return r == 0 ? 0 : band_runs[p][r - 1].end_row; };
  for (std::int32_t block = 1;; ++block) {
    const std::int32_t block_end = block * kRunBlock;
    for (std::size_t p = 0; p < n_pha; ++p) {
      const std::vector<RunTable::Run>& runs = band_runs[p];
      RunTable::Segment segment{start_of(p, next[p]), static_cast<std::int32_t>(table.runs.size()), 0, false};
      for (; next[p] < runs.size() && start_of(p, next[p]) < block_end; ++next[p]) table.runs.push_back(runs[next[p]]);
      segment.last = static_cast<std::int32_t>(table.runs.size());
      if (segment.last > segment.first) table.segments.push_back(segment);
    }
    // The float sums of the last stretch are read directly by the evaluation, not flushed.
    if (block_end >= t) break;
    if (block % kRunFlushBlocks == 0 && !table.segments.empty())
      table.flushes = table.segments.back().flush_after = true;
  }
  return table;
}

}  // namespace pacflow::mi
