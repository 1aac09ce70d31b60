#include "stages/modulation_index/methods/shifted_sums.hpp"

#include <algorithm>
#include <cmath>

#include "stages/modulation_index/mi_math.hpp"

namespace pacflow::mi {

namespace {

// Σ a[i] · b[i] over n terms, four partial sums (i mod 4) added pairwise at the end.
double dot(const double* a, const double* b, std::int64_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

}  // namespace

void shifted_dot(const double* u, const double* v, std::int64_t length, std::span<const std::int64_t> shifts,
                 double* out, std::int64_t out_stride) {
  for (std::size_t k = 0; k < shifts.size(); ++k) {
    const std::int64_t s = shifts[k];
    // t in [0, T − s) pairs with v[t + s]; t in [T − s, T) with v[t + s − T].
    out[static_cast<std::int64_t>(k) * out_stride] = dot(u, v + s, length - s) + dot(u + (length - s), v, s);
  }
}

void cos_sin(const float* angle, std::int64_t n, double* cos_out, double* sin_out) {
  for (std::int64_t i = 0; i < n; ++i) {
    const auto x = static_cast<double>(angle[i]);
    cos_out[i] = std::cos(x);
    sin_out[i] = std::sin(x);
  }
}

std::vector<double> wrapped_prefix(const float* amplitude, std::int64_t length) {
  const auto t = static_cast<std::size_t>(length);
  std::vector<double> prefix(2 * t + 1, 0.0);
  for (std::size_t i = 0; i < 2 * t; ++i) prefix[i + 1] = prefix[i] + static_cast<double>(amplitude[i < t ? i : i - t]);
  return prefix;
}

PhaseRuns::PhaseRuns(const float* phase, std::int64_t n_pha, std::int64_t length, int bins)
    : bins_(bins), runs_(static_cast<std::size_t>(n_pha)), counts_(static_cast<std::size_t>(n_pha * bins), 0) {
  const auto t = static_cast<std::int32_t>(length);
  for (std::int64_t p = 0; p < n_pha; ++p) {
    const float* band = phase + p * length;
    auto& runs = runs_[static_cast<std::size_t>(p)];
    std::int32_t start = 0;
    int bin = phase_bin(band[0], bins);
    for (std::int32_t i = 1; i <= t; ++i) {
      const int next = i < t ? phase_bin(band[i], bins) : -1;
      if (next == bin) continue;
      runs.push_back({start, i, bin});
      counts_[static_cast<std::size_t>(p * bins + bin)] += i - start;
      start = i;
      bin = next;
    }
  }
}

void PhaseRuns::bin_sums(std::int64_t p, const double* prefix, std::int64_t shift, double* sums) const {
  std::fill(sums, sums + bins_, 0.0);
  for (const Run& run : runs_[static_cast<std::size_t>(p)]) sums[run.bin] += prefix[run.end + shift] - prefix[run.start + shift];
}

}  // namespace pacflow::mi
