#include "stages/kernels/pac/shifted_mi_cuda.hpp"

#include <algorithm>

#include "engine/devices/cuda/check.hpp"
#include "engine/devices/cuda/handles.hpp"
#include "stages/common/cuda_launch.hpp"
#include "stages/kernels/pac/methods/pac_math.hpp"
#include "stages/kernels/pac/run_mi_cuda.hpp"

namespace pacflow::mi {

namespace {

constexpr int kWarp = 32;
constexpr int kMaxWarpsPerBlock = 8;

// The item a warp works on, decoded from its index in output order [series][shift][p][a].
struct Item {
  std::int64_t s, k, p, a;
};
__device__ Item decode(std::int64_t item, std::int64_t shift_count, std::int64_t n_pha, std::int64_t n_amp) {
  return {item / (n_amp * n_pha * shift_count), (item / (n_amp * n_pha)) % shift_count, (item / n_amp) % n_pha,
          item % n_amp};
}

// Blocks for a grid-stride loop over `items` warps, a few per multiprocessor.
unsigned blocks_for_items(std::int64_t items, int warps, int ordinal) {
  int sms = 0;
  cuda::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ordinal), "cudaDeviceGetAttribute");
  return static_cast<unsigned>(std::clamp<std::int64_t>((items + warps - 1) / warps, 1, std::int64_t{sms} * 64));
}

// ---- complex-sum measures (mvl, ndpac, plv) ----

__global__ void cos_sin(const float* angle, std::int64_t total, double* cos_out, double* sin_out) {
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const auto x = static_cast<double>(angle[e]);
    cos_out[e] = cos(x);
    sin_out[e] = sin(x);
  }
}

// Per row, in sample order (as the CPU sums): Σ cos φ and Σ sin φ of each phase row, or the mean
// and sample standard deviation (ddof 1, two passes) of each amplitude row.
__global__ void phase_sums(const double* cosines, const double* sines, std::int64_t rows, std::int64_t length,
                           double* sum_cos, double* sum_sin) {
  for (std::int64_t r = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; r < rows;
       r += std::int64_t{gridDim.x} * blockDim.x) {
    double c = 0, s = 0;
    for (std::int64_t t = 0; t < length; ++t) {
      c += cosines[r * length + t];
      s += sines[r * length + t];
    }
    sum_cos[r] = c;
    sum_sin[r] = s;
  }
}

__global__ void amplitude_moments(const float* amplitude, std::int64_t rows, std::int64_t length, double* mean_out,
                                  double* std_out) {
  for (std::int64_t r = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; r < rows;
       r += std::int64_t{gridDim.x} * blockDim.x) {
    const float* a = amplitude + r * length;
    const auto n = static_cast<double>(length);
    double mean = 0, squares = 0;
    for (std::int64_t t = 0; t < length; ++t) mean += static_cast<double>(a[t]);
    mean /= n;
    for (std::int64_t t = 0; t < length; ++t) {
      const double d = static_cast<double>(a[t]) - mean;
      squares += d * d;
    }
    mean_out[r] = mean;
    std_out[r] = length > 1 ? sqrt(squares / (n - 1.0)) : 0.0;
  }
}

// Adds a lane's value over the warp by a fixed shuffle tree: every lane ends with the same sum.
__device__ double warp_sum(double v) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

struct ComplexInputs {
  const double* cos_phi;   // [s][p][t]
  const double* sin_phi;
  const float* amplitude;  // [s][a][t] (mvl, ndpac)
  const double* cos_psi;   // [s][p][a][t] (plv)
  const double* sin_psi;
  const double* sum_cos;   // [s][p] (ndpac)
  const double* sum_sin;
  const double* amp_mean;  // [s][a] (ndpac)
  const double* amp_std;
};

__global__ void shifted_complex(ComplexInputs in, const std::int64_t* shifts, std::int64_t shift_count,
                                std::int64_t n_pha, std::int64_t n_amp, std::int64_t length, GpuMeasure measure,
                                double threshold, std::int64_t items, double* out) {
  const int warps = blockDim.x / kWarp;
  const int warp = threadIdx.x / kWarp;
  const int lane = threadIdx.x % kWarp;
  for (std::int64_t item = std::int64_t{blockIdx.x} * warps + warp; item < items;
       item += std::int64_t{gridDim.x} * warps) {
    const Item at = decode(item, shift_count, n_pha, n_amp);
    const std::int64_t shift = shifts[at.k];
    const double* c_phi = in.cos_phi + (at.s * n_pha + at.p) * length;
    const double* s_phi = in.sin_phi + (at.s * n_pha + at.p) * length;
    double re = 0, im = 0;
    if (measure == GpuMeasure::PhaseLocking) {
      // e^{iφ} e^{−iψ} = (cos φ cos ψ + sin φ sin ψ) + i (sin φ cos ψ − cos φ sin ψ)
      const std::int64_t row = ((at.s * n_pha + at.p) * n_amp + at.a) * length;
      for (std::int64_t t = lane; t < length; t += kWarp) {
        std::int64_t from = t + shift;
        if (from >= length) from -= length;
        const double cp = in.cos_psi[row + from], sp = in.sin_psi[row + from];
        re += c_phi[t] * cp + s_phi[t] * sp;
        im += s_phi[t] * cp - c_phi[t] * sp;
      }
    } else {
      const float* amp = in.amplitude + (at.s * n_amp + at.a) * length;
      for (std::int64_t t = lane; t < length; t += kWarp) {
        std::int64_t from = t + shift;
        if (from >= length) from -= length;
        const auto v = static_cast<double>(amp[from]);
        re += c_phi[t] * v;
        im += s_phi[t] * v;
      }
    }
    re = warp_sum(re);
    im = warp_sum(im);
    if (lane == 0) {
      if (measure == GpuMeasure::NormalisedDirect) {
        const std::int64_t pr = at.s * n_pha + at.p, ar = at.s * n_amp + at.a;
        out[item] = normalised_direct_pac(re, im, in.sum_cos[pr], in.sum_sin[pr], in.amp_mean[ar], in.amp_std[ar],
                                          length, threshold);
      } else {
        out[item] = vector_length(re, im, length);
      }
    }
  }
}

void complex_on_gpu(const GpuBatchBands& batch, const GpuMeasureSpec& spec, const std::int64_t* shifts,
                    std::int64_t shift_count, double* out, const cuda::StageContext& ctx) {
  const cudaStream_t stream = ctx.stream();
  const bool plv = spec.measure == GpuMeasure::PhaseLocking;
  const std::int64_t pha_rows = batch.series * batch.n_pha, amp_rows = batch.series * batch.n_amp;
  const std::int64_t phase_samples = pha_rows * batch.length;
  const auto doubles = [&](std::int64_t n) { return ctx.scratch(static_cast<std::size_t>(n) * sizeof(double)); };
  const SharedMemory cos_phi = doubles(phase_samples), sin_phi = doubles(phase_samples);
  ComplexInputs in{};
  in.cos_phi = reinterpret_cast<double*>(cos_phi.data);
  in.sin_phi = reinterpret_cast<double*>(sin_phi.data);
  in.amplitude = batch.amplitude;
  cos_sin<<<cuda::blocks_for(phase_samples), cuda::kThreads, 0, stream>>>(
      batch.phase, phase_samples, reinterpret_cast<double*>(cos_phi.data), reinterpret_cast<double*>(sin_phi.data));
  cuda::check_launch("mi cos_sin");
  SharedMemory cos_psi, sin_psi, sum_cos, sum_sin, amp_mean, amp_std;
  if (plv) {
    const std::int64_t envelope_samples = pha_rows * batch.n_amp * batch.length;
    cos_psi = doubles(envelope_samples);
    sin_psi = doubles(envelope_samples);
    in.cos_psi = reinterpret_cast<double*>(cos_psi.data);
    in.sin_psi = reinterpret_cast<double*>(sin_psi.data);
    cos_sin<<<cuda::blocks_for(envelope_samples), cuda::kThreads, 0, stream>>>(
        batch.envelope_phase, envelope_samples, reinterpret_cast<double*>(cos_psi.data),
        reinterpret_cast<double*>(sin_psi.data));
    cuda::check_launch("mi cos_sin (envelope phase)");
  }
  if (spec.measure == GpuMeasure::NormalisedDirect) {
    sum_cos = doubles(pha_rows);
    sum_sin = doubles(pha_rows);
    amp_mean = doubles(amp_rows);
    amp_std = doubles(amp_rows);
    in.sum_cos = reinterpret_cast<double*>(sum_cos.data);
    in.sum_sin = reinterpret_cast<double*>(sum_sin.data);
    in.amp_mean = reinterpret_cast<double*>(amp_mean.data);
    in.amp_std = reinterpret_cast<double*>(amp_std.data);
    phase_sums<<<cuda::blocks_for(pha_rows), cuda::kThreads, 0, stream>>>(
        in.cos_phi, in.sin_phi, pha_rows, batch.length, reinterpret_cast<double*>(sum_cos.data),
        reinterpret_cast<double*>(sum_sin.data));
    cuda::check_launch("mi phase_sums");
    amplitude_moments<<<cuda::blocks_for(amp_rows), cuda::kThreads, 0, stream>>>(
        batch.amplitude, amp_rows, batch.length, reinterpret_cast<double*>(amp_mean.data),
        reinterpret_cast<double*>(amp_std.data));
    cuda::check_launch("mi amplitude_moments");
  }
  const std::int64_t items = batch.series * shift_count * batch.n_pha * batch.n_amp;
  shifted_complex<<<blocks_for_items(items, kMaxWarpsPerBlock, ctx.ordinal()), kMaxWarpsPerBlock * kWarp, 0, stream>>>(
      in, shifts, shift_count, batch.n_pha, batch.n_amp, batch.length, spec.measure, spec.ndpac_threshold, items, out);
  cuda::check_launch("mi shifted_complex");
}

}  // namespace

double shifted_measure_scratch_bytes_per_series(const GpuMeasureSpec& spec, std::int64_t n_pha, std::int64_t n_amp,
                                                std::int64_t length) {
  const auto t = static_cast<double>(length);
  switch (spec.measure) {
    case GpuMeasure::Tort:
    case GpuMeasure::HeightsRatio: return binned_by_runs_scratch_bytes_per_series(spec, n_pha, n_amp, length);
    case GpuMeasure::VectorLength:
    case GpuMeasure::NormalisedDirect: return static_cast<double>(n_pha) * 16.0 * (t + 1) + 16.0 * static_cast<double>(n_amp);
    case GpuMeasure::PhaseLocking: return static_cast<double>(n_pha) * 16.0 * t * (1.0 + static_cast<double>(n_amp));
  }
  return 0;
}

void shifted_measure_on_gpu(const GpuBatchBands& batch, const GpuMeasureSpec& spec, const GpuShifts& shifts,
                            double* out, const cuda::StageContext& ctx) {
  switch (spec.measure) {
    case GpuMeasure::Tort:
    case GpuMeasure::HeightsRatio: binned_by_runs_on_gpu(batch, spec, shifts, out, ctx); break;
    case GpuMeasure::VectorLength:
    case GpuMeasure::NormalisedDirect:
    case GpuMeasure::PhaseLocking: complex_on_gpu(batch, spec, shifts.values, shifts.count, out, ctx); break;
  }
}

}  // namespace pacflow::mi
