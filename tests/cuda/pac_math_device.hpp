#pragma once
// Runs the shared per-cell PAC arithmetic (the PACFLOW_HD functions of the method, surrogate and
// erpac *_math.hpp headers) on the GPU for the inputs the test gives, so it can compare them with
// the same calls on the host. Compiled by nvcc (pac_math_device.cu); plain C++ interface.
#include <cstdint>
#include <string>
#include <vector>

namespace pacflow::cuda_test {

// One input case: a few numbers each function reads (the test fills them); every function's
// results are appended in a fixed order, so host and device vectors compare element by element.
struct MathCase {
  double re, im, sum_cos, sum_sin, mean, deviation, threshold;
  std::int64_t length;
  double sums[12];
  std::int64_t counts[12];
  double x1x1, x2x2, x1x2, yy, x1y, x2y, bias;
  double xx, ss, cc, xs, xc, sc;
  std::int64_t epochs;
  std::uint64_t seed, k;
};

// The results of every shared function for each case, computed on the host.
std::vector<double> evaluate_on_host(const std::vector<MathCase>& cases);
// The same on the first GPU; empty with `why` set when there is none.
std::vector<double> evaluate_on_device(const std::vector<MathCase>& cases, std::string* why);

}  // namespace pacflow::cuda_test
