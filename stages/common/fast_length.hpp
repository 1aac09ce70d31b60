#pragma once
#include <cstdint>

#include "stages/common/hd.hpp"

namespace pacflow {

// Smallest 2^a·3^b·5^c >= n (scipy's next_fast_len for real transforms uses the same family).
PACFLOW_HD inline std::int64_t next_fast_length(std::int64_t n) {
  if (n <= 1) return 1;
  std::int64_t best = -1;
  for (std::int64_t p5 = 1; ; p5 *= 5) {
    for (std::int64_t p35 = p5; ; p35 *= 3) {
      std::int64_t v = p35;
      while (v < n) v *= 2;
      if (best < 0 || v < best) best = v;
      if (p35 >= n) break;
    }
    if (p5 >= n) break;
  }
  return best;
}

}  // namespace pacflow
