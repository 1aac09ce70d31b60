#include "stages/common/lanes.hpp"

namespace pacflow::simd {

int simd_width() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const int width = __builtin_cpu_supports("avx512f") ? 64 : (__builtin_cpu_supports("avx2") ? 32 : 16);
  return width;
#else
  return 16;
#endif
}

}  // namespace pacflow::simd
