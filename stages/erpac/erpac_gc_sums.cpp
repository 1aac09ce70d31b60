#include "stages/erpac/erpac_gc_sums.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "stages/common/lanes.hpp"

namespace pacflow::erpac {

namespace {

template <int Bytes>
__attribute__((always_inline)) inline void add_products_in(const double* s, const double* c, const double* y,
                                                           std::size_t length, double* x1y, double* x2y) {
  using Double = typename simd::Simd<Bytes>::Double;
  constexpr std::size_t kLanes = Bytes / sizeof(double);
  std::size_t t = 0;
  for (; t + kLanes <= length; t += kLanes) {
    const Double amplitude = simd::load<Double>(y + t);
    simd::store(x1y + t, simd::load<Double>(x1y + t) + simd::load<Double>(s + t) * amplitude);
    simd::store(x2y + t, simd::load<Double>(x2y + t) + simd::load<Double>(c + t) * amplitude);
  }
  for (; t < length; ++t) {
    x1y[t] += s[t] * y[t];
    x2y[t] += c[t] * y[t];
  }
}

// A lane per window: lane j of a vector sums the window of k + j, adding its times in order.
template <int Bytes>
__attribute__((always_inline)) inline void window_sums_in(const std::array<const double*, 6>& moments,
                                                          std::size_t length, std::size_t smooth,
                                                          const std::array<double*, 6>& sums) {
  using Double = typename simd::Simd<Bytes>::Double;
  constexpr std::size_t kLanes = Bytes / sizeof(double);
  const std::size_t end = length - smooth;
  std::size_t k = smooth;
  for (; k + kLanes <= end; k += kLanes) {
    Double sum[6] = {};
    for (std::size_t t = k - smooth; t <= k + smooth; ++t)
      for (std::size_t m = 0; m < 6; ++m) sum[m] += simd::load<Double>(moments[m] + t);
    for (std::size_t m = 0; m < 6; ++m) simd::store(sums[m] + k, sum[m]);
  }
  for (; k < end; ++k)
    for (std::size_t m = 0; m < 6; ++m) {
      double sum = 0;
      for (std::size_t t = k - smooth; t <= k + smooth; ++t) sum += moments[m][t];
      sums[m][k] = sum;
    }
}

// A lane per time: lane j sums the values of the windows k = t + j − smooth … t + j + smooth in
// ascending k, read from a copy of the values with +0.0 at the k that are no window (which leaves
// a sum's bits as they are: a sum that starts at +0.0 is never −0.0). Four vectors of times at a
// time, so that four chains of additions are in flight. A time's count of windows is exact.
template <int Bytes>
__attribute__((always_inline)) inline void window_means_in(const double* value, std::size_t length, std::size_t smooth,
                                                           double* out) {
  using Double = typename simd::Simd<Bytes>::Double;
  constexpr std::size_t kLanes = Bytes / sizeof(double), kInFlight = 4;
  const std::size_t end = length - smooth;  // windows k in [smooth, end)
  std::vector<double> padded(length + 2 * smooth, 0.0);  // padded[smooth + k] = value[k] for a window k
  std::copy(value + smooth, value + end, padded.begin() + static_cast<std::ptrdiff_t>(2 * smooth));
  std::size_t t = 0;
  for (; t + kInFlight * kLanes <= length; t += kInFlight * kLanes) {
    Double sum[kInFlight] = {};
    for (std::size_t i = 0; i <= 2 * smooth; ++i)
      for (std::size_t q = 0; q < kInFlight; ++q) sum[q] += simd::load<Double>(padded.data() + t + q * kLanes + i);
    for (std::size_t q = 0; q < kInFlight; ++q) simd::store(out + t + q * kLanes, sum[q]);
  }
  for (; t < length; ++t) {
    double sum = 0;
    for (std::size_t i = 0; i <= 2 * smooth; ++i) sum += padded[t + i];
    out[t] = sum;
  }
  for (t = 0; t < length; ++t) {
    const std::size_t first = std::max(smooth, t >= smooth ? t - smooth : 0), last = std::min(end, t + smooth + 1);
    out[t] = last > first ? out[t] / static_cast<double>(last - first) : std::numeric_limits<double>::quiet_NaN();
  }
}

PACFLOW_TARGET_64 void add_products_64(const double* s, const double* c, const double* y, std::size_t n, double* a,
                                       double* b) {
  add_products_in<64>(s, c, y, n, a, b);
}
PACFLOW_TARGET_32 void add_products_32(const double* s, const double* c, const double* y, std::size_t n, double* a,
                                       double* b) {
  add_products_in<32>(s, c, y, n, a, b);
}
void add_products_16(const double* s, const double* c, const double* y, std::size_t n, double* a, double* b) {
  add_products_in<16>(s, c, y, n, a, b);
}
PACFLOW_TARGET_64 void window_sums_64(const std::array<const double*, 6>& m, std::size_t n, std::size_t s,
                                      const std::array<double*, 6>& out) {
  window_sums_in<64>(m, n, s, out);
}
PACFLOW_TARGET_32 void window_sums_32(const std::array<const double*, 6>& m, std::size_t n, std::size_t s,
                                      const std::array<double*, 6>& out) {
  window_sums_in<32>(m, n, s, out);
}
void window_sums_16(const std::array<const double*, 6>& m, std::size_t n, std::size_t s,
                    const std::array<double*, 6>& out) {
  window_sums_in<16>(m, n, s, out);
}
PACFLOW_TARGET_64 void window_means_64(const double* v, std::size_t n, std::size_t s, double* out) {
  window_means_in<64>(v, n, s, out);
}
PACFLOW_TARGET_32 void window_means_32(const double* v, std::size_t n, std::size_t s, double* out) {
  window_means_in<32>(v, n, s, out);
}
void window_means_16(const double* v, std::size_t n, std::size_t s, double* out) { window_means_in<16>(v, n, s, out); }

}  // namespace

void add_products(const double* s, const double* c, const double* y, std::size_t length, double* x1y, double* x2y,
                  int simd_bytes) {
  const int width = simd::width_or_widest(simd_bytes);
  (width == 64 ? add_products_64 : (width == 32 ? add_products_32 : add_products_16))(s, c, y, length, x1y, x2y);
}

void window_sums(const std::array<const double*, 6>& moments, std::size_t length, std::size_t smooth,
                 const std::array<double*, 6>& sums, int simd_bytes) {
  const int width = simd::width_or_widest(simd_bytes);
  (width == 64 ? window_sums_64 : (width == 32 ? window_sums_32 : window_sums_16))(moments, length, smooth, sums);
}

void window_means(const double* value, std::size_t length, std::size_t smooth, double* out, int simd_bytes) {
  const int width = simd::width_or_widest(simd_bytes);
  (width == 64 ? window_means_64 : (width == 32 ? window_means_32 : window_means_16))(value, length, smooth, out);
}

}  // namespace pacflow::erpac
