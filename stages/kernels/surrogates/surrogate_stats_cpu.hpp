#pragma once
// Per-cell surrogate statistics on the CPU (spec §6): cell_stats' Welford update (surrogate_math.hpp)
// run on all cells of an output row at once, one cell per vector lane, so the values are read in
// the order they are stored ([alignment][cell]) and the bits are those of cell_stats cell by cell.
#include <cstdint>
#include <span>

#include "stages/kernels/surrogates/surrogate_math.hpp"

namespace pacflow::surrogates {

// values [n + 1][cells]: row 0 the observed measure, rows 1… the surrogates. Writes, at [at + c] of
// each output, z, mean, std, p and maxstat p (statistics[0..4]) and, when `corrected` is not null,
// the observed value corrected by `norm`.
void surrogate_stats_on_cpu(const double* values, std::int64_t n, std::int64_t cells, std::span<float* const, 5> statistics,
                            float* corrected, Norm norm, std::int64_t at);

}  // namespace pacflow::surrogates
