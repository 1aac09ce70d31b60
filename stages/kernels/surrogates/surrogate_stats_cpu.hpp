#pragma once
// Per-cell surrogate statistics on the CPU (spec §6): cell_stats' Welford update (surrogate_math.hpp)
// run on all cells of an output row at once, one cell per vector lane, so the values are read in
// the order they are stored ([alignment][cell]) and the bits are those of cell_stats cell by cell.
#include <cstdint>
#include <span>
#include <vector>

#include "stages/kernels/surrogates/surrogate_math.hpp"

namespace pacflow::surrogates {

// The statistics of one output row gathered over its surrogates a chunk at a time, in k order:
// Welford's state, the counts and each surrogate's largest value over the cells carry from one
// chunk to the next, so any cut of the surrogates into chunks gives the bits of one pass over all
// of them (a series' n + 1 alignments need not be held at once: the surrogates stage's row_memory).
class StreamedStats {
 public:
  // observed[cells]: the row's observed measure.
  StreamedStats(const double* observed, std::int64_t cells);
  // rows[count][cells]: surrogates first_k, first_k + 1, …, following those added before.
  void add(const double* rows, std::int64_t first_k, std::int64_t count);
  // After n surrogates: at [at + c] of each output, z, mean, std, p and maxstat p (statistics[0..4])
  // and, when `corrected` is not null, the observed value corrected by `norm`.
  void write(std::int64_t n, std::span<float* const, 5> statistics, float* corrected, Norm norm,
             std::int64_t at) const;

  struct State {
    std::vector<double> mean, m2;                 // Welford's, per cell
    std::vector<std::int64_t> exceed, exceed_max;  // #{k: value_k >= observed}, #{k: largest_k >= observed}
  };

 private:
  std::vector<double> observed_;
  std::int64_t added_ = 0;
  State state_;
};

// values [n + 1][cells]: row 0 the observed measure, rows 1… the surrogates. Writes, at [at + c] of
// each output, z, mean, std, p and maxstat p (statistics[0..4]) and, when `corrected` is not null,
// the observed value corrected by `norm`. StreamedStats over one chunk.
void surrogate_stats_on_cpu(const double* values, std::int64_t n, std::int64_t cells, std::span<float* const, 5> statistics,
                            float* corrected, Norm norm, std::int64_t at);

}  // namespace pacflow::surrogates
