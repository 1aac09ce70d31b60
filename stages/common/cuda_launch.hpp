#pragma once
// Grid sizes for the GPU stages' element-wise kernels.
#include <algorithm>
#include <cstdint>

namespace pacflow::cuda {

inline constexpr int kThreads = 256;

// Blocks to cover `n` elements with kThreads each (grid-stride loops cover any remainder).
inline unsigned blocks_for(std::int64_t n) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((n + kThreads - 1) / kThreads, 1, 1 << 20));
}

}  // namespace pacflow::cuda
