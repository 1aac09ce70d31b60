#include "stages/kernels/filters/filtfilt_cuda.hpp"
#include <cmath>

#include "engine/devices/cuda/check.hpp"
#include "stages/common/cuda_launch.hpp"
#include "stages/kernels/filters/filtfilt_math.hpp"

namespace pacflow::fir {

namespace {

std::vector<float> interleaved(const FiltFiltBank& bank) {
  std::vector<float> out;
  for (const auto& band : bank.kernel_spectra())
    for (const auto& k : band) {
      out.push_back(k.real());
      out.push_back(k.imag());
    }
  return out;
}

// ext[s][i] = the odd extension of series s (zero for the padding series past `series`).
__global__ void extend(const float* signal, std::int64_t series, std::int64_t padded, std::int64_t t,
                       std::int64_t pad, std::int64_t n, float* ext) {
  const std::int64_t total = padded * n;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t s = e / n;
    ext[e] = s < series ? odd_extended(signal + s * t, t, pad, e % n) : 0.0f;
  }
}

// prod[s · bands + b][k] = spec[s][k] · filter[b][k], and zero rows up to `rows` (whole cuFFT calls).
__global__ void multiply(const float2* spec, const float* filters, std::int64_t series, std::int64_t bands,
                         std::int64_t bins, std::int64_t rows, float2* prod) {
  const std::int64_t filled = series * bands * bins;
  const std::int64_t total = rows * bins;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    if (e >= filled) {
      prod[e] = make_float2(0.0f, 0.0f);
      continue;
    }
    const std::int64_t k = e % bins;
    const std::int64_t row = e / bins;
    const std::int64_t b = row % bands;
    const std::int64_t s = row / bands;
    const float2 a = spec[s * bins + k];
    float2 out;
    multiply_bin(a.x, a.y, filters[2 * (b * bins + k)], filters[2 * (b * bins + k) + 1], out.x, out.y);
    prod[e] = out;
  }
}

// out[s][b][i] = full[s · bands + b][pad + i + order_b]: the centre of band b's symmetric kernel,
// past the extension.
__global__ void extract(const float* full, const std::int64_t* orders, std::int64_t series, std::int64_t bands,
                        std::int64_t t, std::int64_t pad, std::int64_t n, float* out) {
  const std::int64_t total = series * bands * t;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = e % t;
    const std::int64_t row = e / t;
    out[e] = full[row * n + pad + i + orders[row % bands]];
  }
}

}  // namespace

FiltFiltBankOnGpu::FiltFiltBankOnGpu(const FiltFiltBank& bank)
    : bank_(bank), spectra_(interleaved(bank)), orders_(bank.orders()) {}

double FiltFiltBankOnGpu::workspace_bytes(std::int64_t series, std::size_t fft_size, std::size_t band_count) {
  const auto n = static_cast<double>(fft_size);
  const double bins = std::floor(n / 2) + 1;
  const auto bands = static_cast<double>(band_count);
  const auto padded = static_cast<double>(cufft::padded_count(series));
  const auto rows = static_cast<double>(cufft::padded_count(series * static_cast<std::int64_t>(bands)));
  return padded * (4 * n + 8 * bins) + rows * (8 * bins + 4 * n) + cufft::work_area_bound(static_cast<std::int64_t>(n));
}

void FiltFiltBankOnGpu::apply(const float* signal, std::int64_t series, float* out, const cuda::StageContext& ctx,
                              cufft::PlanCache& plans) {
  const auto n = static_cast<std::int64_t>(bank_.fft_size());
  const std::int64_t bins = n / 2 + 1;
  const auto bands = static_cast<std::int64_t>(bank_.band_count());
  const std::int64_t t = bank_.series_length();
  const std::int64_t padded = cufft::padded_count(series);
  const cudaStream_t stream = ctx.stream();
  const auto bytes = [](std::int64_t count, std::size_t size) { return static_cast<std::size_t>(count) * size; };

  const SharedMemory ext = ctx.scratch(bytes(padded * n, sizeof(float)));
  extend<<<cuda::blocks_for(padded * n), cuda::kThreads, 0, stream>>>(signal, series, padded, t, bank_.pad(), n,
                                                                        reinterpret_cast<float*>(ext.data));
  cuda::check_launch("bandpass extend");
  const SharedMemory spec = ctx.scratch(bytes(padded * bins, sizeof(float2)));
  plans.get(ctx, cufft::Kind::RealToComplex, n).execute(ctx, ext.data, spec.data, padded);

  // One inverse transform per (series, band) row, in whole cuFFT calls.
  const std::int64_t rows = cufft::padded_count(series * bands);
  const SharedMemory prod = ctx.scratch(bytes(rows * bins, sizeof(float2)));
  multiply<<<cuda::blocks_for(rows * bins), cuda::kThreads, 0, stream>>>(
      reinterpret_cast<const float2*>(spec.data), spectra_.on(ctx), series, bands, bins, rows,
      reinterpret_cast<float2*>(prod.data));
  cuda::check_launch("bandpass multiply");
  const SharedMemory full = ctx.scratch(bytes(rows * n, sizeof(float)));
  plans.get(ctx, cufft::Kind::ComplexToReal, n).execute(ctx, prod.data, full.data, rows);

  extract<<<cuda::blocks_for(series * bands * t), cuda::kThreads, 0, stream>>>(
      reinterpret_cast<const float*>(full.data), orders_.on(ctx), series, bands, t, bank_.pad(), n, out);
  cuda::check_launch("bandpass extract");
}

}  // namespace pacflow::fir
