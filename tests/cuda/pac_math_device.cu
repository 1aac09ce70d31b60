#include "tests/cuda/pac_math_device.hpp"

#include <cuda_runtime.h>

#include "stages/erpac/erpac_math.hpp"
#include "stages/kernels/pac/methods/pac_math.hpp"
#include "stages/kernels/surrogates/surrogate_math.hpp"

namespace pacflow::cuda_test {

namespace {

constexpr int kBins = 12;
constexpr int kEpochs = 9;
constexpr int kPerCase = 6 + kBins + 3 + 2 + 4 + kEpochs;  // results appended per case, see evaluate()

// Every shared function once, results written to out[0 .. kPerCase).
PACFLOW_HD void evaluate(const MathCase& c, double* out) {
  int n = 0;
  out[n++] = mi::vector_length(c.re, c.im, c.length);
  out[n++] = mi::normalised_direct_pac(c.re, c.im, c.sum_cos, c.sum_sin, c.mean, c.deviation, c.length, c.threshold);
  out[n++] = mi::heights_ratio(c.sums, c.counts, kBins);
  out[n++] = mi::preferred_phase(c.sums, c.counts, kBins);
  const mi::GaussianMoments m{c.x1x1, c.x2x2, c.x1x2, c.yy, c.x1y, c.x2y};
  out[n++] = mi::gaussian_copula_mi(m, c.bias);
  out[n++] = mi::gaussian_copula_mi(m, 0.0);
  mi::amplitude_distribution(c.sums, c.counts, kBins, out + n);
  n += kBins;
  const double rho = erpac::circular_linear_correlation({c.xx, c.ss, c.cc, c.xs, c.xc, c.sc});
  out[n++] = rho;
  out[n++] = erpac::correlation_pvalue(rho, c.epochs);
  out[n++] = erpac::correlation_pvalue(0.3, c.epochs);
  // Surrogate statistics of the sums as if they were surrogate values, and each normalisation.
  const surrogates::CellStats s = surrogates::cell_stats(c.mean, c.sums, kBins, 1);
  out[n++] = s.z;
  out[n++] = s.p;
  out[n++] = surrogates::normalised(c.mean, s, surrogates::Norm::Subtract);
  out[n++] = surrogates::normalised(c.mean, s, surrogates::Norm::Divide);
  out[n++] = surrogates::normalised(c.mean, s, surrogates::Norm::Both);
  out[n++] = static_cast<double>(surrogates::timeshift(c.seed, c.k, 10, c.length));
  std::int64_t perm[kEpochs];
  surrogates::epoch_permutation(c.seed, c.k, kEpochs, perm);
  for (int e = 0; e < kEpochs - 1; ++e) out[n++] = static_cast<double>(perm[e]);
}

__global__ void evaluate_kernel(const MathCase* cases, int count, double* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) evaluate(cases[i], out + static_cast<std::size_t>(i) * kPerCase);
}

}  // namespace

std::vector<double> evaluate_on_host(const std::vector<MathCase>& cases) {
  std::vector<double> out(cases.size() * kPerCase);
  for (std::size_t i = 0; i < cases.size(); ++i) evaluate(cases[i], out.data() + i * kPerCase);
  return out;
}

std::vector<double> evaluate_on_device(const std::vector<MathCase>& cases, std::string* why) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    *why = "no CUDA device";
    return {};
  }
  MathCase* d_cases = nullptr;
  double* d_out = nullptr;
  const std::size_t out_count = cases.size() * kPerCase;
  std::vector<double> out(out_count);
  const auto fail = [&](cudaError_t e) {
    *why = cudaGetErrorString(e);
    cudaFree(d_cases);
    cudaFree(d_out);
    return std::vector<double>{};
  };
  if (auto e = cudaMalloc(&d_cases, cases.size() * sizeof(MathCase)); e != cudaSuccess) return fail(e);
  if (auto e = cudaMalloc(&d_out, out_count * sizeof(double)); e != cudaSuccess) return fail(e);
  if (auto e = cudaMemcpy(d_cases, cases.data(), cases.size() * sizeof(MathCase), cudaMemcpyHostToDevice); e != cudaSuccess)
    return fail(e);
  const int count = static_cast<int>(cases.size());
  evaluate_kernel<<<(count + 127) / 128, 128>>>(d_cases, count, d_out);
  if (auto e = cudaGetLastError(); e != cudaSuccess) return fail(e);
  if (auto e = cudaMemcpy(out.data(), d_out, out_count * sizeof(double), cudaMemcpyDeviceToHost); e != cudaSuccess)
    return fail(e);
  cudaFree(d_cases);
  cudaFree(d_out);
  return out;
}

}  // namespace pacflow::cuda_test
