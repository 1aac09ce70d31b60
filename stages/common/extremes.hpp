#pragma once
// The smallest and largest of many floats and whether all are finite, in one pass of vectors: what
// the checks of every input sample (sources, given_bands) need of the usual series, whose values
// are all in range. Selects and products only (no comparison masks, which an AVX-512F-only target
// would emulate lane by lane), so every vector width runs at its full rate.
#include <cstdint>

namespace pacflow {

struct Extremes {
  float lo = 0;         // the smallest value (meaningful when finite)
  float hi = 0;         // the largest
  bool finite = true;   // no NaN and no infinity among them
};

// Of x[0, n), n >= 1; simd_bytes 16, 32 or 64 (0: the widest this CPU has), every width the same.
Extremes extremes(const float* x, std::int64_t n, int simd_bytes = 0);

}  // namespace pacflow
