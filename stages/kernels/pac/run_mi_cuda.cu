#include "stages/kernels/pac/run_mi_cuda.hpp"

#include <algorithm>
#include <cub/block/block_scan.cuh>
#include <stdexcept>

#include "engine/devices/cuda/check.hpp"
#include "stages/common/cuda_launch.hpp"
#include "stages/kernels/pac/methods/pac_math.hpp"
#include "stages/kernels/pac/mi_math.hpp"
#include "stages/kernels/pac/run_mi_math.hpp"

namespace pacflow::mi {

namespace {

constexpr int kRunThreads = 256;        // threads of a run-finding block
constexpr int kRunSamples = 8;          // consecutive samples per thread and tile
constexpr int kMaxSumThreads = 256;     // threads of a summing block
constexpr std::size_t kSharedBudget = 96 * 1024;  // dynamic shared memory per summing block

// ---- 1. runs ----

// For row = one series' phase band (blockIdx.x): ends[row][r], bin_of[row][r] for its runs in time
// order, run_counts[row], and counts[row][bin]. Each thread takes kRunSamples consecutive samples
// of a tile; a sample ends a run when the next one (or the row) ends there.
__global__ void find_runs(const float* phase, std::int64_t length, int bins, std::int32_t* ends,
                          std::uint16_t* bin_of, std::int32_t* run_counts, std::int32_t* counts) {
  using Scan = cub::BlockScan<int, kRunThreads>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ int placed;  // runs of the row written so far
  extern __shared__ int histogram[];
  const std::int64_t row = blockIdx.x;
  const float* p = phase + row * length;
  for (int j = threadIdx.x; j < bins; j += blockDim.x) histogram[j] = 0;
  if (threadIdx.x == 0) placed = 0;
  __syncthreads();
  for (std::int64_t tile = 0; tile < length; tile += std::int64_t{kRunThreads} * kRunSamples) {
    const std::int64_t first = tile + std::int64_t{threadIdx.x} * kRunSamples;
    const std::int64_t last = std::min(first + kRunSamples, length);
    int bin[kRunSamples];
    bool end[kRunSamples];
    int found = 0;
    int next = first < length ? phase_bin(p[first], bins) : 0;
    for (int i = 0; i < kRunSamples; ++i) {
      const std::int64_t t = first + i;
      bin[i] = next;
      end[i] = false;
      if (t >= last) continue;
      next = t + 1 < length ? phase_bin(p[t + 1], bins) : -1;
      end[i] = next != bin[i];
      found += end[i] ? 1 : 0;
    }
    int offset = 0, total = 0;
    Scan(scan).ExclusiveSum(found, offset, total);
    const int base = placed;
    // Samples per bin, one atomic per stretch of equal bin within the thread's samples.
    int stretch = 0;
    for (int i = 0; i < kRunSamples && first + i < last; ++i) {
      ++stretch;
      if (end[i] || first + i + 1 == last) {
        atomicAdd(&histogram[bin[i]], stretch);
        stretch = 0;
      }
      if (end[i]) {
        const std::int64_t at = row * length + base + offset++;
        ends[at] = static_cast<std::int32_t>(first + i + 1);
        bin_of[at] = static_cast<std::uint16_t>(bin[i]);
      }
    }
    __syncthreads();  // every thread has read `placed` and the scan storage
    if (threadIdx.x == 0) placed = base + total;
    __syncthreads();
  }
  if (threadIdx.x == 0) run_counts[row] = placed;
  for (int j = threadIdx.x; j < bins; j += blockDim.x) counts[row * bins + j] = histogram[j];
}

// ---- 2. rows ----

// For (series s, amplitude band a): tort's detrended rows q[s][i][a] = Q[i] and means[s][a] = μ, or
// hr's prefix rows p[s][i][a] = P[i], for i < rows.
__global__ void band_rows(const float* amplitude, std::int64_t bands, std::int64_t n_amp, std::int64_t length,
                          std::int64_t rows, GpuMeasure measure, void* out, double* means) {
  for (std::int64_t band = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; band < bands;
       band += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t s = band / n_amp, a = band % n_amp;
    const float* samples = amplitude + band * length;
    const std::int64_t first = s * rows * n_amp + a;
    if (measure == GpuMeasure::HeightsRatio) {
      wrapped_prefix_rows(samples, length, rows, static_cast<double*>(out) + first, n_amp);
    } else {
      const double mean = band_mean(samples, length);
      means[band] = mean;
      detrended_rows(samples, length, mean, rows, static_cast<float*>(out) + first, n_amp);
    }
  }
}

// ---- 3. sums ----

struct SumJob {
  const std::int32_t* ends;       // [series][n_pha][length], run_counts[row] of each row used
  const std::uint16_t* bin_of;
  const std::int32_t* run_counts;  // [series][n_pha]
  const std::int32_t* counts;     // [series][n_pha][bins]
  const void* rows;               // [series][rows][n_amp]: float Q (tort) or double P (hr)
  const double* means;            // [series][n_amp] (tort)
  const std::int64_t* shifts;
  std::int64_t shift_count, n_pha, n_amp, length, rows_per_series;
  int bins;
  double inv_log_bins;
  std::int64_t tiles;  // blocks per (series, phase band)
};

// Block b: (series, phase band) b / tiles, its threads the (alignment, amplitude band) pairs
// [b % tiles · blockDim, …) in output order. Every thread's sums are its own column of the block's
// shared memory ([bin][thread]: a warp touching one bin touches consecutive words).
template <GpuMeasure kMeasure>
__global__ void sum_runs(SumJob job, double* out) {
  extern __shared__ double shared[];
  const std::int64_t row = blockIdx.x / job.tiles;
  const std::int64_t pair = (blockIdx.x % job.tiles) * blockDim.x + threadIdx.x;
  if (pair >= job.shift_count * job.n_amp) return;  // no block-wide synchronisation below
  const std::int64_t k = pair / job.n_amp, a = pair % job.n_amp;
  const std::int64_t s = row / job.n_pha, p = row % job.n_pha;
  const std::int32_t* ends = job.ends + row * job.length;
  const std::uint16_t* bin_of = job.bin_of + row * job.length;
  const std::int64_t first_row = s * job.rows_per_series * job.n_amp + a;
  const std::int64_t at = ((s * job.shift_count + k) * job.n_pha + p) * job.n_amp + a;
  if constexpr (kMeasure == GpuMeasure::HeightsRatio) {
    double* sums = shared + threadIdx.x;
    for (int j = 0; j < job.bins; ++j) sums[std::int64_t{j} * blockDim.x] = 0.0;
    add_prefix_runs(ends, bin_of, 0, job.run_counts[row], 0, static_cast<const double*>(job.rows) + first_row,
                    job.n_amp, job.shifts[k], sums, blockDim.x);
    out[at] = heights_ratio(sums, job.counts + row * job.bins, job.bins, blockDim.x);
  } else {
    const BinSums sums{reinterpret_cast<float*>(shared + std::int64_t{job.bins} * blockDim.x) + threadIdx.x,
                       shared + threadIdx.x, blockDim.x};
    clear_sums(sums, job.bins);
    std::int32_t next_flush = kRunFlushSamples;
    add_runs(ends, bin_of, 0, job.run_counts[row], 0, static_cast<const float*>(job.rows) + first_row, job.n_amp,
             job.shifts[k], job.bins, sums, next_flush);
    finish_runs(job.length, job.bins, sums, next_flush);
    out[at] = tort_mi_of_sums(sums, job.counts + row * job.bins, job.bins, job.means[s * job.n_amp + a], job.length,
                              job.inv_log_bins);
  }
}

// Shared memory per thread: tort's float and double sums per bin, hr's double sums.
std::size_t shared_per_thread(GpuMeasure measure, int bins) {
  return static_cast<std::size_t>(bins) *
         (measure == GpuMeasure::HeightsRatio ? sizeof(double) : sizeof(double) + sizeof(float));
}

// Bytes of one row of an amplitude band.
std::size_t row_bytes(GpuMeasure measure) { return measure == GpuMeasure::HeightsRatio ? sizeof(double) : sizeof(float); }

}  // namespace

double binned_by_runs_scratch_bytes_per_series(const GpuMeasureSpec& spec, std::int64_t n_pha, std::int64_t n_amp,
                                               std::int64_t length) {
  const auto t = static_cast<double>(length);
  const double runs = static_cast<double>(n_pha) * (t * (4.0 + 2.0) + 4.0 * (spec.bins + 1));
  // Rows for any alignment below the length, and tort's band means.
  const double rows = static_cast<double>(n_amp) * ((2.0 * t + 1.0) * static_cast<double>(row_bytes(spec.measure)) + 8.0);
  return runs + rows;
}

void binned_by_runs_on_gpu(const GpuBatchBands& batch, const GpuMeasureSpec& spec, const GpuShifts& shifts,
                           double* out, const cuda::StageContext& ctx) {
  const int bins = spec.bins;
  if (spec.measure != GpuMeasure::Tort && spec.measure != GpuMeasure::HeightsRatio)
    throw std::logic_error("binned_by_runs_on_gpu: tort and hr only");
  if (bins < 1 || bins > kMaxGpuBins) throw std::logic_error("binned_by_runs_on_gpu: bins out of range");
  if (batch.length >= (std::int64_t{1} << 30) - shifts.largest)
    throw std::logic_error("binned_by_runs_on_gpu: series too long for 32-bit run ends");
  if (batch.series == 0 || batch.n_pha == 0 || batch.n_amp == 0 || shifts.count == 0) return;
  const cudaStream_t stream = ctx.stream();
  const std::int64_t pha_rows = batch.series * batch.n_pha;
  const std::int64_t amp_rows = batch.series * batch.n_amp;
  const std::int64_t rows = batch.length + shifts.largest + 1;
  if (pha_rows > std::int64_t{0x7fffffff}) throw std::logic_error("binned_by_runs_on_gpu: batch too large for one grid");
  const auto bytes = [](std::int64_t n, std::size_t each) { return static_cast<std::size_t>(n) * each; };
  const SharedMemory ends = ctx.scratch(bytes(pha_rows * batch.length, sizeof(std::int32_t)));
  const SharedMemory bin_of = ctx.scratch(bytes(pha_rows * batch.length, sizeof(std::uint16_t)));
  const SharedMemory run_counts = ctx.scratch(bytes(pha_rows, sizeof(std::int32_t)));
  const SharedMemory counts = ctx.scratch(bytes(pha_rows * bins, sizeof(std::int32_t)));
  const SharedMemory band_rows_memory = ctx.scratch(bytes(amp_rows * rows, row_bytes(spec.measure)));
  const SharedMemory means = ctx.scratch(bytes(amp_rows, sizeof(double)));
  SumJob job{reinterpret_cast<std::int32_t*>(ends.data),
             reinterpret_cast<std::uint16_t*>(bin_of.data),
             reinterpret_cast<std::int32_t*>(run_counts.data),
             reinterpret_cast<std::int32_t*>(counts.data),
             band_rows_memory.data,
             reinterpret_cast<double*>(means.data),
             shifts.values,
             shifts.count,
             batch.n_pha,
             batch.n_amp,
             batch.length,
             rows,
             bins,
             inverse_log_bins(bins),
             0};

  find_runs<<<static_cast<unsigned>(pha_rows), kRunThreads, static_cast<std::size_t>(bins) * sizeof(int), stream>>>(
      batch.phase, batch.length, bins, reinterpret_cast<std::int32_t*>(ends.data),
      reinterpret_cast<std::uint16_t*>(bin_of.data), reinterpret_cast<std::int32_t*>(run_counts.data),
      reinterpret_cast<std::int32_t*>(counts.data));
  cuda::check_launch("mi find_runs");
  // Few threads, each a long chain of dependent additions: small blocks spread them over the SMs.
  constexpr int kRowThreads = 32;
  band_rows<<<static_cast<unsigned>((amp_rows + kRowThreads - 1) / kRowThreads), kRowThreads, 0, stream>>>(
      batch.amplitude, amp_rows, batch.n_amp, batch.length, rows, spec.measure, band_rows_memory.data,
      reinterpret_cast<double*>(means.data));
  cuda::check_launch("mi band_rows");

  // As many threads per block as the shared budget allows for the bins (whole warps), and no more
  // than there are (alignment, band) pairs.
  const std::size_t per_thread = shared_per_thread(spec.measure, bins);
  const std::int64_t pairs = shifts.count * batch.n_amp;
  const int threads = static_cast<int>(std::clamp<std::int64_t>(
      std::min<std::int64_t>(static_cast<std::int64_t>(kSharedBudget / per_thread) / 32, (pairs + 31) / 32) * 32, 32,
      kMaxSumThreads));
  const std::size_t shared = per_thread * static_cast<std::size_t>(threads);
  job.tiles = (pairs + threads - 1) / threads;
  const std::int64_t blocks = pha_rows * job.tiles;
  if (blocks > std::int64_t{0x7fffffff}) throw std::logic_error("binned_by_runs_on_gpu: batch too large for one grid");
  const auto launch = [&](auto kernel, const char* name) {
    // Always the same limit, whatever this launch needs: threads launching with other bins never
    // lower it under each other.
    if (shared > 48 * 1024)
      cuda::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(kSharedBudget)),
                  "cudaFuncSetAttribute (mi sum_runs shared memory)");
    kernel<<<static_cast<unsigned>(blocks), static_cast<unsigned>(threads), shared, stream>>>(job, out);
    cuda::check_launch(name);
  };
  if (spec.measure == GpuMeasure::HeightsRatio)
    launch(sum_runs<GpuMeasure::HeightsRatio>, "mi sum_runs (hr)");
  else
    launch(sum_runs<GpuMeasure::Tort>, "mi sum_runs (tort)");
}

}  // namespace pacflow::mi
