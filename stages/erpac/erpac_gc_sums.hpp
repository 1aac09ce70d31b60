#pragma once
// The sums of Gaussian-copula ERPAC (erpac_gc.cpp) in the widest vectors the CPU has: each lane a
// time (or a window), each lane's additions the scalar definition's, in its order, so the bits
// are those of a plain loop at every width. `simd_bytes` picks the width (16, 32 or 64 bytes; 0: the
// widest this CPU has), for the tests.
#include <array>
#include <cstddef>

namespace pacflow::erpac {

// x1y[t] += s[t]·y[t] and x2y[t] += c[t]·y[t] for every t < length: one epoch's products.
void add_products(const double* s, const double* c, const double* y, std::size_t length, double* x1y, double* x2y,
                  int simd_bytes = 0);

// sums[m][k] = Σ_{t = k−smooth}^{k+smooth} moments[m][t], t ascending from 0.0, for every k in
// [smooth, length − smooth) and m < 6 (2·smooth + 1 <= length).
void window_sums(const std::array<const double*, 6>& moments, std::size_t length, std::size_t smooth,
                 const std::array<double*, 6>& sums, int simd_bytes = 0);

// out[t] = the mean of value[k] over the windows k in [smooth, length − smooth) that hold t
// (|k − t| <= smooth), summed in ascending k; NaN where no window holds t.
void window_means(const double* value, std::size_t length, std::size_t smooth, double* out, int simd_bytes = 0);

}  // namespace pacflow::erpac
