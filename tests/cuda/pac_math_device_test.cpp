// The per-cell arithmetic every PAC method, surrogate statistic and erpac shares between CPU and GPU
// gives the same numbers on the device as on the host (sqrt, division and the permutations exactly;
// exp and log1p within a few ulp, as CUDA documents them).
#include <cmath>
#include <gtest/gtest.h>

#include "tests/cuda/pac_math_device.hpp"

namespace pacflow {
namespace {

std::vector<cuda_test::MathCase> cases() {
  std::vector<cuda_test::MathCase> out;
  for (int i = 0; i < 200; ++i) {
    const double x = 0.37 * i + 0.1;
    cuda_test::MathCase c{};
    c.re = 100 * std::sin(x);
    c.im = 80 * std::cos(1.3 * x);
    c.sum_cos = 3 * std::sin(2.1 * x);
    c.sum_sin = 2 * std::cos(0.7 * x);
    c.mean = 1.5 + 0.5 * std::sin(x);
    c.deviation = i % 17 == 0 ? 0.0 : 0.2 + 0.1 * std::cos(x);
    c.threshold = i % 3 == 0 ? 0.0 : 1000 * (1 + std::sin(3 * x));
    c.length = 1000 + i;
    for (int j = 0; j < 12; ++j) {
      c.counts[j] = (i + j) % 11 == 0 ? 0 : 50 + (i * j) % 7;
      c.sums[j] = i % 29 == 0 ? 0.0 : static_cast<double>(c.counts[j]) * (1.0 + 0.3 * std::sin(x + j));
    }
    c.x1x1 = 900 + 10 * std::sin(x);
    c.x2x2 = 950 + 10 * std::cos(x);
    c.x1x2 = 20 * std::sin(2 * x);
    c.yy = 990;
    c.x1y = 300 * std::sin(0.5 * x);
    c.x2y = 200 * std::cos(0.9 * x);
    c.bias = -0.001 * (1 + i % 3);
    c.xx = 12 + std::sin(x);
    c.ss = 4 + std::cos(x);
    c.cc = 5 + std::sin(1.7 * x);
    c.xs = 2 * std::sin(0.3 * x);
    c.xc = 2 * std::cos(0.4 * x);
    c.sc = std::sin(0.8 * x);
    c.epochs = 9;
    c.seed = 42 + static_cast<std::uint64_t>(i % 5);
    c.k = static_cast<std::uint64_t>(i);
    out.push_back(c);
  }
  return out;
}

TEST(PacMathOnDevice, EveryMethodsPerCellArithmeticMatchesTheHost) {
  const auto input = cases();
  std::string why;
  const auto device = cuda_test::evaluate_on_device(input, &why);
  if (device.empty()) GTEST_SKIP() << "no GPU: " << why;
  const auto host = cuda_test::evaluate_on_host(input);
  ASSERT_EQ(device.size(), host.size());
  for (std::size_t i = 0; i < host.size(); ++i) {
    if (std::isnan(host[i])) {
      EXPECT_TRUE(std::isnan(device[i])) << "result " << i;
      continue;
    }
    EXPECT_NEAR(device[i], host[i], 1e-15 * std::abs(host[i]) + 1e-300) << "result " << i;
  }
}

}  // namespace
}  // namespace pacflow
