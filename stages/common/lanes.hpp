#pragma once
// Native-width GCC vector types for the hot CPU kernels, and the choice of width at run time.
//
// A kernel is written once as a template on the vector width in bytes (16 = SSE2/NEON, 32 = AVX2,
// 64 = AVX-512), compiled once per width in a function carrying that instruction set's target
// attribute, and chosen once from the running CPU's features (simd_width()). So the portable
// default build uses AVX-512 or AVX2 where the machine has them, and each instance only uses
// vectors its instruction set holds in registers (a 64-byte vector on an AVX2 target would live in
// memory and be slower than scalar code).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

// Passing vectors by value between functions compiled for different instruction sets would change
// the ABI; ours are all inlined into their per-width instance, so GCC's note about it is moot.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace pacflow::simd {

// Vector types of one width. Aligned to their size explicitly: GCC caps the alignment of a vector
// wider than the compiling target's registers, and an instance for a wider target would then use
// aligned loads on memory allocated for less.
template <int Bytes>
struct Simd;

#define PACFLOW_SIMD_TYPES(BYTES)                                                               \
  template <>                                                                                   \
  struct Simd<BYTES> {                                                                          \
    using Float = float __attribute__((vector_size(BYTES), aligned(BYTES)));                    \
    using Double = double __attribute__((vector_size(BYTES), aligned(BYTES)));                  \
    using Int64 = std::int64_t __attribute__((vector_size(BYTES), aligned(BYTES)));             \
    using Int32 = std::int32_t __attribute__((vector_size(BYTES), aligned(BYTES)));             \
    using HalfFloat = float __attribute__((vector_size(BYTES / 2)));  /* widens to Double */  \
    using HalfInt32 = std::int32_t __attribute__((vector_size(BYTES / 2)));  /* Double's lanes */ \
    static constexpr int floats = BYTES / 4;                                                    \
    static constexpr int doubles = BYTES / 8;                                                   \
  };
PACFLOW_SIMD_TYPES(16)
PACFLOW_SIMD_TYPES(32)
PACFLOW_SIMD_TYPES(64)
#undef PACFLOW_SIMD_TYPES

// A vector from / to memory of any alignment (a memcpy the compiler turns into one unaligned move).
template <class Vector>
__attribute__((always_inline)) inline Vector load(const void* from) {
  Vector v;
  std::memcpy(&v, from, sizeof(v));
  return v;
}
template <class Vector>
__attribute__((always_inline)) inline void store(void* to, const Vector& v) {
  std::memcpy(to, &v, sizeof(v));
}

// Rows of 16 floats (one 64-byte slot each), zero-filled, 64-byte aligned: a kernel of any width
// reads a row as 64 / Bytes vectors.
class FloatRows {
 public:
  static constexpr int kFloats = 16;
  explicit FloatRows(std::size_t rows = 0) : slots_(rows) {}
  void resize(std::size_t rows) { slots_.resize(rows); }
  std::size_t rows() const { return slots_.size(); }
  float* row(std::size_t i) { return slots_[i].values; }
  const float* data() const { return slots_.data()->values; }
  float* data() { return slots_.data()->values; }

 private:
  struct alignas(64) Slot {
    float values[kFloats];
  };
  std::vector<Slot> slots_;
};

// The widest vector the running CPU supports: 64, 32 or 16 bytes (16 off x86-64).
int simd_width();

// The width a kernel's `simd_bytes` argument asks for: 16, 32 or 64 bytes, or 0 for the widest.
inline int width_or_widest(int simd_bytes) { return simd_bytes == 0 ? simd_width() : simd_bytes; }

}  // namespace pacflow::simd

#if defined(__x86_64__)
#define PACFLOW_TARGET_64 __attribute__((target("avx512f")))
#define PACFLOW_TARGET_32 __attribute__((target("avx2")))
#else
#define PACFLOW_TARGET_64
#define PACFLOW_TARGET_32
#endif
