#include "stages/kernels/analytic/analytic_signal_cuda.hpp"

#include <algorithm>

#include "engine/devices/cuda/check.hpp"
#include "stages/common/cuda_launch.hpp"
#include "stages/kernels/analytic/hilbert_math.hpp"

namespace pacflow::hilbert {

namespace {

// Rows per chunk: a whole number of cuFFT calls, about 64 MiB of complex samples at n = 4096.
constexpr std::int64_t kChunkRows = 16 * cufft::kTransformsPerCall;

// real[r][i] = in[r][i] for i < length, 0 up to n (and whole zero rows past `rows`).
__global__ void pad_rows(const float* in, std::int64_t rows, std::int64_t chunk, std::int64_t length, std::int64_t n,
                         float* real) {
  const std::int64_t total = chunk * n;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t r = e / n, i = e % n;
    real[e] = r < rows && i < length ? in[r * length + i] : 0.0f;
  }
}

// full[r][k]: the r2c bins 0..n/2 weighted (scipy.signal.hilbert), negative frequencies zero.
__global__ void weight_bins(const float2* half, std::int64_t chunk, std::int64_t n, float2* full) {
  const std::int64_t bins = n / 2 + 1;
  const std::int64_t total = chunk * n;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t r = e / n, k = e % n;
    float2 z = make_float2(0.0f, 0.0f);
    if (k < bins) {
      const float w = analytic_weight(k, n);
      const float2 s = half[r * bins + k];
      z = make_float2(s.x * w, s.y * w);
    }
    full[e] = z;
  }
}

// out[r][i] from sample first + i of row r's analytic signal, i < kept.
__global__ void write_output(const float2* z, std::int64_t rows, std::int64_t first, std::int64_t kept, std::int64_t n,
                             bool phase, float* out) {
  const std::int64_t total = rows * kept;
  const float scale = 1.0f / static_cast<float>(n);
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t r = e / kept, i = e % kept;
    const float2 v = z[r * n + first + i];
    // The phase needs no scaling (atan2 of a scaled pair is the same angle), as on the CPU.
    out[e] = phase ? phase_of(v.x, v.y) : amplitude_of(v.x * scale, v.y * scale);
  }
}

}  // namespace

double analytic_workspace_bytes(std::int64_t rows, std::int64_t n) {
  const auto chunk = static_cast<double>(std::min(kChunkRows, cufft::padded_count(rows)));
  const auto bins = static_cast<double>(n / 2 + 1);
  return chunk * (4.0 * static_cast<double>(n) + 8.0 * bins + 8.0 * static_cast<double>(n)) +
         2 * cufft::work_area_bound(n);
}

void analytic_rows_on_gpu(const float* in, std::int64_t rows, std::int64_t length, std::int64_t n, Output what,
                          float* out, const cuda::StageContext& ctx, cufft::PlanCache& plans, std::int64_t first,
                          std::int64_t kept) {
  if (kept < 0) kept = length - first;
  const std::int64_t chunk = std::min(kChunkRows, cufft::padded_count(rows));
  const std::int64_t bins = n / 2 + 1;
  const auto bytes = [](std::int64_t count, std::size_t size) { return static_cast<std::size_t>(count) * size; };
  const SharedMemory real = ctx.scratch(bytes(chunk * n, sizeof(float)));
  const SharedMemory half = ctx.scratch(bytes(chunk * bins, sizeof(float2)));
  const SharedMemory full = ctx.scratch(bytes(chunk * n, sizeof(float2)));
  cufft::Plan& forward = plans.get(ctx, cufft::Kind::RealToComplex, n);
  cufft::Plan& inverse = plans.get(ctx, cufft::Kind::ComplexInverse, n);
  const cudaStream_t stream = ctx.stream();
  for (std::int64_t start = 0; start < rows; start += chunk) {
    const std::int64_t count = std::min(chunk, rows - start);
    const std::int64_t calls = cufft::padded_count(count);
    pad_rows<<<cuda::blocks_for(calls * n), cuda::kThreads, 0, stream>>>(in + start * length, count, calls, length, n,
                                                                        reinterpret_cast<float*>(real.data));
    cuda::check_launch("hilbert pad_rows");
    forward.execute(ctx, real.data, half.data, calls);
    weight_bins<<<cuda::blocks_for(calls * n), cuda::kThreads, 0, stream>>>(
        reinterpret_cast<const float2*>(half.data), calls, n, reinterpret_cast<float2*>(full.data));
    cuda::check_launch("hilbert weight_bins");
    inverse.execute(ctx, full.data, full.data, calls);
    write_output<<<cuda::blocks_for(count * kept), cuda::kThreads, 0, stream>>>(
        reinterpret_cast<const float2*>(full.data), count, first, kept, n, what == Output::Phase, out + start * kept);
    cuda::check_launch("hilbert write_output");
  }
}

}  // namespace pacflow::hilbert
