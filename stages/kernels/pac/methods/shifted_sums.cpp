#include "stages/kernels/pac/methods/shifted_sums.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "engine/api/errors.hpp"
#include "stages/common/lanes.hpp"
#include "stages/kernels/pac/mi_math.hpp"
#include "stages/kernels/pac/run_mi_math.hpp"

namespace pacflow::mi {

namespace {

// Σ a[i] · b[i] split into 16 partial sums by i mod 16, then added in a fixed pairwise tree. The
// split does not depend on the vector width (16 / lanes accumulators of `lanes` doubles), and the
// build has no fused multiply-adds, so every width gives the same bits.
constexpr int kPartials = 16;

template <int Bytes>
__attribute__((always_inline)) inline double dot_lanes(const double* a, const double* b, std::int64_t n) {
  using Double = typename simd::Simd<Bytes>::Double;
  constexpr int kLanes = simd::Simd<Bytes>::doubles;
  constexpr int kVectors = kPartials / kLanes;
  Double acc[kVectors];
  for (auto& v : acc) v = Double{} + 0.0;
  std::int64_t i = 0;
  for (; i + kPartials <= n; i += kPartials)
    for (int v = 0; v < kVectors; ++v) {
      Double x, y;
      std::memcpy(&x, a + i + v * kLanes, sizeof(x));
      std::memcpy(&y, b + i + v * kLanes, sizeof(y));
      acc[v] += x * y;
    }
  double partial[kPartials];
  for (int v = 0; v < kVectors; ++v)
    for (int l = 0; l < kLanes; ++l) partial[v * kLanes + l] = acc[v][l];
  for (std::int64_t j = 0; i + j < n; ++j) partial[j] += a[i + j] * b[i + j];
  for (int half = kPartials / 2; half >= 1; half /= 2)
    for (int j = 0; j < half; ++j) partial[j] += partial[j + half];
  return partial[0];
}

PACFLOW_TARGET_64 double dot_64(const double* a, const double* b, std::int64_t n) { return dot_lanes<64>(a, b, n); }
PACFLOW_TARGET_32 double dot_32(const double* a, const double* b, std::int64_t n) { return dot_lanes<32>(a, b, n); }
double dot_16(const double* a, const double* b, std::int64_t n) { return dot_lanes<16>(a, b, n); }

// Checks `stop` before every shift: one load of a flag beside two dot products of T samples.
void shifted_dot_until_stopped(const double* u, const double* v, std::int64_t length,
                               std::span<const std::int64_t> shifts, double* out, std::int64_t out_stride,
                               int simd_bytes, const std::stop_token& stop) {
  const int width = simd::width_or_widest(simd_bytes);
  if (width != 16 && width != 32 && width != 64)
    throw std::invalid_argument("shifted_dot: vector width must be 16, 32 or 64 bytes");
  const auto dot = width == 64 ? dot_64 : (width == 32 ? dot_32 : dot_16);
  for (std::size_t k = 0; k < shifts.size(); ++k) {
    if (stop.stop_requested()) throw RunCancelled(-1);
    const std::int64_t s = shifts[k];
    // t in [0, T − s) pairs with v[t + s]; t in [T − s, T) with v[t + s − T].
    out[static_cast<std::int64_t>(k) * out_stride] = dot(u, v + s, length - s) + dot(u + (length - s), v, s);
  }
}

}  // namespace

void shifted_dot(const double* u, const double* v, std::int64_t length, std::span<const std::int64_t> shifts,
                 double* out, std::int64_t out_stride, int simd_bytes) {
  shifted_dot_until_stopped(u, v, length, shifts, out, out_stride, simd_bytes, {});
}

void shifted_dot(const double* u, const double* v, std::int64_t length, std::span<const std::int64_t> shifts,
                 double* out, const std::stop_token& stop) {
  shifted_dot_until_stopped(u, v, length, shifts, out, 1, 0, stop);
}

void cos_sin(const float* angle, std::int64_t n, double* cos_out, double* sin_out) {
  for (std::int64_t i = 0; i < n; ++i) {
    const auto x = static_cast<double>(angle[i]);
    cos_out[i] = std::cos(x);
    sin_out[i] = std::sin(x);
  }
}

std::vector<double> wrapped_prefix(const float* amplitude, std::int64_t length) {
  std::vector<double> prefix(static_cast<std::size_t>(2 * length + 1));
  wrapped_prefix_rows(amplitude, length, 2 * length + 1, prefix.data(), 1);
  return prefix;
}

PhaseRuns::PhaseRuns(const float* phase, std::int64_t n_pha, std::int64_t length, int bins)
    : bins_(bins), runs_(static_cast<std::size_t>(n_pha)), counts_(static_cast<std::size_t>(n_pha * bins), 0) {
  const auto t = static_cast<std::int32_t>(length);
  for (std::int64_t p = 0; p < n_pha; ++p) {
    const float* band = phase + p * length;
    Band& runs = runs_[static_cast<std::size_t>(p)];
    std::int32_t start = 0;
    int bin = phase_bin(band[0], bins);
    for (std::int32_t i = 1; i <= t; ++i) {
      const int next = i < t ? phase_bin(band[i], bins) : -1;
      if (next == bin) continue;
      runs.ends.push_back(i);
      runs.bins.push_back(bin);
      counts_[static_cast<std::size_t>(p * bins + bin)] += i - start;
      start = i;
      bin = next;
    }
  }
}

void PhaseRuns::bin_sums(std::int64_t p, const double* prefix, std::int64_t shift, double* sums) const {
  std::fill(sums, sums + bins_, 0.0);
  const Band& runs = runs_[static_cast<std::size_t>(p)];
  add_prefix_runs(runs.ends.data(), runs.bins.data(), 0, static_cast<std::int32_t>(runs.ends.size()), 0, prefix, 1,
                  shift, sums, 1);
}

}  // namespace pacflow::mi
