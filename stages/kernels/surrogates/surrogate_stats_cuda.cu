#include "stages/kernels/surrogates/surrogate_stats_cuda.hpp"

#include "engine/devices/cuda/check.hpp"
#include "stages/common/cuda_launch.hpp"
#include "stages/kernels/surrogates/surrogate_math.hpp"

namespace pacflow::surrogates {

namespace {

// largest[s][k] = max over cells of surrogate k's MI in series s.
__global__ void largest_per_permutation(const double* mi, std::int64_t series, std::int64_t n_perm, std::int64_t cells,
                                        double* largest) {
  const std::int64_t total = series * n_perm;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t s = e / n_perm, k = e % n_perm;
    const double* row = mi + (s * (n_perm + 1) + 1 + k) * cells;
    double m = row[0];
    for (std::int64_t c = 1; c < cells; ++c) m = row[c] > m ? row[c] : m;
    largest[e] = m;
  }
}

__global__ void cell_statistics(const double* mi, const double* largest, std::int64_t series, std::int64_t n_perm,
                                std::int64_t cells, float* z, float* mean, float* std_dev, float* p, float* p_max,
                                float* corrected, Norm norm) {
  const std::int64_t total = series * cells;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t s = e / cells, c = e % cells;
    const double* rows = mi + s * (n_perm + 1) * cells;
    const double observed = rows[c];
    const CellStats stats = cell_stats(observed, rows + cells + c, n_perm, cells);
    std::int64_t exceed = 0;
    for (std::int64_t k = 0; k < n_perm; ++k) exceed += largest[s * n_perm + k] >= observed ? 1 : 0;
    z[e] = static_cast<float>(stats.z);
    mean[e] = static_cast<float>(stats.mean);
    std_dev[e] = static_cast<float>(stats.std);
    p[e] = static_cast<float>(stats.p);
    p_max[e] = static_cast<float>(static_cast<double>(1 + exceed) / static_cast<double>(n_perm + 1));
    if (corrected) corrected[e] = static_cast<float>(normalised(observed, stats, norm));
  }
}

}  // namespace

void surrogate_stats_on_gpu(const double* mi, std::int64_t series, std::int64_t n_perm, std::int64_t cells,
                            float* const statistics[5], float* normalised, Norm norm, const cuda::StageContext& ctx) {
  const SharedMemory largest = ctx.scratch(static_cast<std::size_t>(series * n_perm) * sizeof(double));
  auto* largest_data = reinterpret_cast<double*>(largest.data);
  largest_per_permutation<<<cuda::blocks_for(series * n_perm), cuda::kThreads, 0, ctx.stream()>>>(
      mi, series, n_perm, cells, largest_data);
  cuda::check_launch("surrogates largest_per_permutation");
  cell_statistics<<<cuda::blocks_for(series * cells), cuda::kThreads, 0, ctx.stream()>>>(
      mi, largest_data, series, n_perm, cells, statistics[0], statistics[1], statistics[2], statistics[3], statistics[4],
      normalised, norm);
  cuda::check_launch("surrogates cell_statistics");
}

}  // namespace pacflow::surrogates
