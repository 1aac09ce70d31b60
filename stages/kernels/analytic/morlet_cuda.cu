#include "stages/kernels/analytic/morlet_cuda.hpp"

#include <cmath>

#include "engine/devices/cuda/check.hpp"
#include "stages/common/cuda_launch.hpp"

namespace pacflow::morlet {

namespace {

__global__ void decompose(const float* in, std::int64_t series, std::int64_t length, const double* re,
                          const double* im, const std::int64_t* layout, std::int64_t bands, bool phase,
                          std::int64_t first, std::int64_t kept, float* out) {
  const std::int64_t total = series * bands * kept;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t row = e / kept, n = e % kept, band = row % bands, s = row / bands;
    const std::int64_t* w = layout + 3 * band;
    double y_re = 0, y_im = 0;
    morlet_sample(in + s * length, length, re + w[0], im + w[0], w[1], w[2], first + n, y_re, y_im);
    out[e] = static_cast<float>(phase ? atan2(y_im, y_re) : hypot(y_re, y_im));
  }
}

}  // namespace

FlatBank::FlatBank(const std::vector<Wavelet>& wavelets) {
  for (const Wavelet& w : wavelets) {
    layout.push_back(static_cast<std::int64_t>(re.size()));
    layout.push_back(w.taps());
    layout.push_back(w.offset());
    re.insert(re.end(), w.re.begin(), w.re.end());
    im.insert(im.end(), w.im.begin(), w.im.end());
  }
}

double morlet_workspace_bytes(const FlatBank& bank) {
  return static_cast<double>((bank.re.size() + bank.im.size()) * sizeof(double) +
                             bank.layout.size() * sizeof(std::int64_t));
}

void morlet_rows_on_gpu(const float* in, std::int64_t series, std::int64_t length, const FlatBank& bank, bool phase,
                        float* out, std::int64_t first, std::int64_t kept, const cuda::StageContext& ctx) {
  const auto bands = static_cast<std::int64_t>(bank.layout.size() / 3);
  if (bands == 0 || series == 0) return;
  const cudaStream_t stream = ctx.stream();
  const SharedMemory re = ctx.scratch(bank.re.size() * sizeof(double));
  const SharedMemory im = ctx.scratch(bank.im.size() * sizeof(double));
  const SharedMemory layout = ctx.scratch(bank.layout.size() * sizeof(std::int64_t));
  cuda::check(cudaMemcpyAsync(re.data, bank.re.data(), bank.re.size() * sizeof(double), cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (wavelet taps)");
  cuda::check(cudaMemcpyAsync(im.data, bank.im.data(), bank.im.size() * sizeof(double), cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (wavelet taps)");
  cuda::check(cudaMemcpyAsync(layout.data, bank.layout.data(), bank.layout.size() * sizeof(std::int64_t),
                              cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (wavelet layout)");
  decompose<<<cuda::blocks_for(series * bands * kept), cuda::kThreads, 0, stream>>>(
      in, series, length, reinterpret_cast<const double*>(re.data), reinterpret_cast<const double*>(im.data),
      reinterpret_cast<const std::int64_t*>(layout.data), bands, phase, first, kept, out);
  cuda::check_launch("wavelet decompose");
}

}  // namespace pacflow::morlet
