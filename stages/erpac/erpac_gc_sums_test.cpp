// The Gaussian-copula ERPAC's sums in vectors (erpac_gc_sums.hpp) against their scalar definitions,
// bit for bit, at every vector width this CPU has.
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <vector>

#include "stages/common/lanes.hpp"
#include "stages/erpac/erpac_gc_sums.hpp"

namespace pacflow {
namespace {

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

// Values of every sign and size, with NaN and infinities at a few places when `special`.
std::vector<double> sums_values(std::size_t n, unsigned seed, bool special) {
  std::mt19937_64 generator(seed);
  std::normal_distribution<double> normal(0.0, 3.0);
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = normal(generator) * std::pow(10.0, static_cast<double>(i % 7) - 3.0);
  if (special && n > 20) {
    v[n / 3] = std::numeric_limits<double>::quiet_NaN();
    v[n / 2] = std::numeric_limits<double>::infinity();
    v[n - 2] = -0.0;
  }
  return v;
}

TEST(ErpacSums, VectorsGiveTheScalarDefinitionsBitsAtEveryWidth) {
  for (const int width : {16, 32, 64}) {
    if (width > simd::simd_width()) continue;
    for (const std::size_t length : {1, 3, 7, 8, 9, 17, 33, 100, 1501}) {
      for (const bool special : {false, true}) {
        const auto s = sums_values(length, 1, special), c = sums_values(length, 2, special),
                   y = sums_values(length, 3, special);
        auto x1y = sums_values(length, 4, false), x2y = sums_values(length, 5, false);
        std::vector<double> want1 = x1y, want2 = x2y;
        for (std::size_t t = 0; t < length; ++t) {
          want1[t] += s[t] * y[t];
          want2[t] += c[t] * y[t];
        }
        erpac::add_products(s.data(), c.data(), y.data(), length, x1y.data(), x2y.data(), width);
        for (std::size_t t = 0; t < length; ++t)
          ASSERT_TRUE(same_bits(x1y[t], want1[t]) && same_bits(x2y[t], want2[t]))
              << "width " << width << ", length " << length << ", t " << t;

        for (const std::size_t smooth : {0, 1, 3, 8, 50}) {
          if (2 * smooth + 1 > length) continue;
          std::array<std::vector<double>, 6> moments;
          std::array<const double*, 6> from;
          std::array<std::vector<double>, 6> pooled;
          std::array<double*, 6> to;
          for (std::size_t m = 0; m < 6; ++m) {
            moments[m] = sums_values(length, 10 + static_cast<unsigned>(m), special);
            from[m] = moments[m].data();
            pooled[m].assign(length, -7.0);
            to[m] = pooled[m].data();
          }
          erpac::window_sums(from, length, smooth, to, width);
          for (std::size_t m = 0; m < 6; ++m)
            for (std::size_t k = 0; k < length; ++k) {
              double want = -7.0;  // outside [smooth, length - smooth): left as it was
              if (k >= smooth && k + smooth < length) {
                want = 0.0;
                for (std::size_t t = k - smooth; t <= k + smooth; ++t) want += moments[m][t];
              }
              ASSERT_TRUE(same_bits(pooled[m][k], want))
                  << "width " << width << ", length " << length << ", smooth " << smooth << ", k " << k;
            }

          const auto value = sums_values(length, 20, special);
          std::vector<double> out(length + 1, -7.0);
          erpac::window_means(value.data(), length, smooth, out.data(), width);
          for (std::size_t t = 0; t < length; ++t) {
            double sum = 0, count = 0;
            for (std::size_t k = smooth; k + smooth < length; ++k)
              if (k <= t + smooth && t <= k + smooth) {
                sum += value[k];
                count += 1;
              }
            const double want = count > 0 ? sum / count : std::numeric_limits<double>::quiet_NaN();
            ASSERT_TRUE(same_bits(out[t], want) || (std::isnan(out[t]) && std::isnan(want)))
                << "width " << width << ", length " << length << ", smooth " << smooth << ", t " << t;
          }
          EXPECT_EQ(out[length], -7.0);  // nothing past the end
        }
      }
    }
  }
}

}  // namespace
}  // namespace pacflow
