#pragma once
// to[i] += from[i] over a row of doubles, in the widest vectors the CPU has: each element its own
// addition, so the bits are those of the scalar loop (the trial-level test's sums are added this
// way, row by row, and must not depend on how).
#include <cstdint>

namespace pacflow::surrogates {

void add_row(double* to, const double* from, std::int64_t n);

}  // namespace pacflow::surrogates
