#include "stages/modulation_index/shifted_mi_cuda.hpp"

#include <algorithm>

#include "engine/cuda/check.hpp"
#include "engine/cuda/handles.hpp"
#include "stages/common/cuda_launch.hpp"
#include "stages/modulation_index/mi_math.hpp"

namespace pacflow::mi {

namespace {

constexpr int kWarp = 32;
constexpr int kMaxWarpsPerBlock = 8;
constexpr std::size_t kSharedBudget = 96 * 1024;  // dynamic shared memory per block we allow ourselves

// bin[s][p][t] = phase_bin(phase[s][p][t]).
__global__ void bin_phases(const float* phase, std::int64_t total, int bins, std::uint16_t* out) {
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x)
    out[e] = static_cast<std::uint16_t>(phase_bin(phase[e], bins));
}

// counts[row][j] = samples of row (one series' phase band) in bin j. Integer atomics: exact.
__global__ void count_bins(const std::uint16_t* bin_of, std::int64_t length, int bins, int* counts) {
  extern __shared__ int histogram[];
  for (int j = threadIdx.x; j < bins; j += blockDim.x) histogram[j] = 0;
  __syncthreads();
  const std::uint16_t* row = bin_of + blockIdx.x * length;
  for (std::int64_t t = threadIdx.x; t < length; t += blockDim.x) atomicAdd(&histogram[row[t]], 1);
  __syncthreads();
  for (int j = threadIdx.x; j < bins; j += blockDim.x) counts[blockIdx.x * std::int64_t{bins} + j] = histogram[j];
}

// One warp per (series, shift, phase band, amplitude band) item, in output order.
__global__ void shifted_mi(const std::uint16_t* bin_of, const int* counts, const float* amplitude,
                           const std::int64_t* shifts, std::int64_t shift_count, std::int64_t n_pha,
                           std::int64_t n_amp, std::int64_t length, int bins, double inv_log_bins,
                           std::int64_t items, double* out) {
  extern __shared__ double shared[];
  const int warps = blockDim.x / kWarp;
  const int warp = threadIdx.x / kWarp;
  const int lane = threadIdx.x % kWarp;
  double* lane_sums = shared + static_cast<std::size_t>(warp) * bins * (kWarp + 1);  // [bin][lane]
  double* means = lane_sums + bins * kWarp;
  for (std::int64_t item = std::int64_t{blockIdx.x} * warps + warp; item < items;
       item += std::int64_t{gridDim.x} * warps) {
    const std::int64_t a = item % n_amp;
    const std::int64_t p = (item / n_amp) % n_pha;
    const std::int64_t k = (item / (n_amp * n_pha)) % shift_count;
    const std::int64_t s = item / (n_amp * n_pha * shift_count);
    for (int j = 0; j < bins; ++j) lane_sums[j * kWarp + lane] = 0.0;
    __syncwarp();
    const std::uint16_t* bin = bin_of + (s * n_pha + p) * length;
    const float* amp = amplitude + (s * n_amp + a) * length;
    const std::int64_t shift = shifts[k];
    for (std::int64_t t = lane; t < length; t += kWarp) {
      std::int64_t from = t + shift;
      if (from >= length) from -= length;
      lane_sums[bin[t] * kWarp + lane] += static_cast<double>(amp[from]);
    }
    __syncwarp();
    const int* count = counts + (s * n_pha + p) * bins;
    for (int j = lane; j < bins; j += kWarp) {
      double sum = 0.0;
      for (int l = 0; l < kWarp; ++l) sum += lane_sums[j * kWarp + l];  // fixed order: reproducible
      means[j] = sum * inverse_count(count[j]);
    }
    __syncwarp();
    if (lane == 0) out[item] = tort_mi_from_means<double, long long>(means, bins, inv_log_bins);
    __syncwarp();
  }
}

}  // namespace

double shifted_mi_scratch_bytes_per_series(std::int64_t n_pha, std::int64_t length, int bins) {
  return static_cast<double>(n_pha) * (2.0 * static_cast<double>(length) + 4.0 * bins);
}

void shifted_mi_on_gpu(const GpuBatchBands& batch, int bins, const std::int64_t* shifts, std::int64_t shift_count,
                       double* out, const cuda::StageContext& ctx) {
  if (bins < 1 || bins > kMaxGpuBins) throw std::logic_error("shifted_mi_on_gpu: bins out of range");
  const cudaStream_t stream = ctx.stream();
  const std::int64_t rows = batch.series * batch.n_pha;
  const SharedMemory bin_of = ctx.scratch(static_cast<std::size_t>(rows * batch.length) * sizeof(std::uint16_t));
  const SharedMemory counts = ctx.scratch(static_cast<std::size_t>(rows * bins) * sizeof(int));
  auto* bins_data = reinterpret_cast<std::uint16_t*>(bin_of.data);
  auto* counts_data = reinterpret_cast<int*>(counts.data);
  bin_phases<<<cuda::blocks_for(rows * batch.length), cuda::kThreads, 0, stream>>>(batch.phase, rows * batch.length,
                                                                                  bins, bins_data);
  cuda::check_launch("mi bin_phases");
  count_bins<<<static_cast<unsigned>(rows), cuda::kThreads, static_cast<std::size_t>(bins) * sizeof(int), stream>>>(
      bins_data, batch.length, bins, counts_data);
  cuda::check_launch("mi count_bins");

  const std::size_t per_warp = static_cast<std::size_t>(bins) * (kWarp + 1) * sizeof(double);
  const int warps = static_cast<int>(std::clamp<std::size_t>(kSharedBudget / per_warp, 1, kMaxWarpsPerBlock));
  const std::size_t shared = per_warp * static_cast<std::size_t>(warps);
  if (shared > 48 * 1024)
    cuda::check(cudaFuncSetAttribute(shifted_mi, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)),
                "cudaFuncSetAttribute (mi shared memory)");
  const std::int64_t items = batch.series * shift_count * batch.n_pha * batch.n_amp;
  int sms = 0;
  cuda::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx.device()), "cudaDeviceGetAttribute");
  const auto blocks = static_cast<unsigned>(
      std::clamp<std::int64_t>((items + warps - 1) / warps, 1, std::int64_t{sms} * 64));
  shifted_mi<<<blocks, static_cast<unsigned>(warps * kWarp), shared, stream>>>(
      bins_data, counts_data, batch.amplitude, shifts, shift_count, batch.n_pha, batch.n_amp, batch.length, bins,
      inverse_log_bins(bins), items, out);
  cuda::check_launch("mi shifted_mi");
}

}  // namespace pacflow::mi
