// extremes(): every vector width gives the scalar smallest, largest and finiteness, for every length
// around the vector widths and a NaN or an infinity at any position.
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <vector>

#include "stages/common/extremes.hpp"
#include "stages/common/lanes.hpp"

namespace pacflow {
namespace {

TEST(Extremes, EveryWidthFindsTheSmallestLargestAndAnyValueNotFinite) {
  for (const int width : {16, 32, 64}) {
    if (width > simd::simd_width()) continue;
    for (std::int64_t n = 1; n <= 70; ++n) {
      std::vector<float> x(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = std::sin(1.7f * static_cast<float>(i)) * 5.0f;
      const Extremes e = extremes(x.data(), n, width);
      EXPECT_TRUE(e.finite);
      EXPECT_EQ(e.lo, *std::min_element(x.begin(), x.end())) << width << " " << n;
      EXPECT_EQ(e.hi, *std::max_element(x.begin(), x.end())) << width << " " << n;
      for (std::int64_t at = 0; at < n; ++at)
        for (const float bad : {NAN, INFINITY, -INFINITY}) {
          auto y = x;
          y[static_cast<std::size_t>(at)] = bad;
          EXPECT_FALSE(extremes(y.data(), n, width).finite) << width << " " << n << " " << at << " " << bad;
        }
      auto extreme = x;  // the largest finite floats are finite
      extreme[static_cast<std::size_t>(n / 2)] = -3.4e38f;
      extreme[static_cast<std::size_t>(n - 1)] = 3.4e38f;
      const Extremes wide = extremes(extreme.data(), n, width);
      EXPECT_TRUE(wide.finite);
      EXPECT_EQ(wide.hi, 3.4e38f);
      if (n > 2) {
        EXPECT_EQ(wide.lo, -3.4e38f);
      }
    }
  }
}

}  // namespace
}  // namespace pacflow
