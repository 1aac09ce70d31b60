// Stage `surrogates` on a GPU (part of the CUDA plugin): time-shift and time-lag surrogates of the
// measures the GPU has (modulation_index/gpu_support.hpp), per series, their statistics, and the
// trial-level test's epoch pairings.
#include <algorithm>

#include "engine/devices/cuda/check.hpp"
#include "engine/devices/cuda/kernel.hpp"
#include "stages/common/device_constants.hpp"
#include "stages/common/tensor_names.hpp"
#include "stages/cuda_kernels.hpp"
#include "stages/kernels/pac/gpu_support.hpp"
#include "stages/kernels/pac/shifted_mi_cuda.hpp"
#include "stages/kernels/surrogates/surrogate_stats_cuda.hpp"
#include "stages/surrogates/surrogates_stage.hpp"

namespace pacflow::stages {

class SurrogatesCudaKernel final : public cuda::Kernel {
 public:
  explicit SurrogatesCudaKernel(const SurrogatesPlan& plan)
      : plan_(plan),
        shifts_(plan.alignment_shifts),
        largest_shift_(plan.alignment_shifts.empty() ? 0 : *std::ranges::max_element(plan.alignment_shifts)) {}

  std::string why_not() const override {
    if (plan_.kind == SurrogateKind::SwapTrials) return "swap_trials surrogates are computed on the CPU only";
    if (plan_.keep_values) return "surrogate values (outputs=values) are written on the CPU only";
    return mi::why_not_on_gpu(plan_.settings, plan_.pairs);
  }

  void run(Batch& batch, cuda::StageContext& ctx) override {
    using cuda::StageContext;
    const mi::GpuBatchBands bands{StageContext::data<float>(batch.at(tensors::kPhase)),
                                  StageContext::data<float>(batch.at(tensors::kAmplitude)),
                                  plan_.envelope ? StageContext::data<float>(batch.at(tensors::kEnvelopePhase))
                                                 : nullptr,
                                  batch.series_count, plan_.n_pha, plan_.n_amp, plan_.length};
    const std::int64_t cells = plan_.n_pha * plan_.n_amp;
    // [series][1 + n_perm][cells]
    SharedMemory values =
        ctx.scratch(static_cast<std::size_t>(batch.series_count * (plan_.n_perm + 1) * cells) * sizeof(double));
    auto* mi_values = reinterpret_cast<double*>(values.data);
    mi::shifted_measure_on_gpu(bands, *mi::gpu_measure(plan_.settings, plan_.length),
                               {shifts_.on(ctx), plan_.n_perm + 1, largest_shift_}, mi_values, ctx);
    float* out[6] = {};
    for (std::size_t i = 0; i < plan_.outputs.size(); ++i)
      out[i] =
          StageContext::data<float>(ctx.emplace(batch, plan_.outputs[i], {plan_.n_pha, plan_.n_amp}, DType::Float32));
    surrogates::surrogate_stats_on_gpu(mi_values, batch.series_count, plan_.n_perm, cells, out, out[5], plan_.norm,
                                       ctx);
    if (plan_.trials.test != surrogates::TrialTest::None) trial_pairings(batch, bands, shifts_.on(ctx), ctx);
  }

  double workspace_bytes(std::int64_t series) const override {
    const auto cells = static_cast<double>(plan_.n_pha * plan_.n_amp);
    const auto spec = mi::gpu_measure(plan_.settings, plan_.length);
    const double pairings =
        plan_.trials.test == surrogates::TrialTest::None ? 0.0 : static_cast<double>(plan_.trials.block) * cells * 8.0;
    return static_cast<double>(series) *
           (static_cast<double>(plan_.n_perm + 1) * cells * 8.0 + pairings + static_cast<double>(plan_.n_perm) * 8.0 +
            (spec ? mi::shifted_measure_scratch_bytes_per_series(*spec, plan_.n_pha, plan_.n_amp, plan_.length) : 0.0));
  }

 private:
  // The trial-level pairings (rows are series here: no channel pairs): for each block of the batch and
  // each epoch offset d, the epochs e of the block whose e + d is in it measure their phase against
  // the amplitude d epochs on (one contiguous run of series), and each epoch's results go to column
  // e + d of its rows. `observed` is the device's alignment list, whose first is 0.
  void trial_pairings(Batch& batch, const mi::GpuBatchBands& bands, const std::int64_t* observed,
                      cuda::StageContext& ctx) const {
    using cuda::StageContext;
    const std::int64_t n_pha = plan_.n_pha, n_amp = plan_.n_amp, length = plan_.length;
    const std::int64_t cells = n_pha * n_amp, block = plan_.trials.block, per_epoch = plan_.series_per_epoch;
    const auto cell_bytes = static_cast<std::size_t>(cells) * sizeof(double);
    double* pairings = StageContext::data<double>(
        ctx.emplace(batch, surrogates::kTrialPairingsTensor, {block, n_pha, n_amp}, DType::Float64));
    // All bits set is a NaN: the columns past a short last block.
    cuda::check(cudaMemsetAsync(pairings, 0xff, static_cast<std::size_t>(batch.series_count * block) * cell_bytes,
                                ctx.stream()),
                "cudaMemsetAsync (trial pairings)");
    SharedMemory scratch = ctx.scratch(static_cast<std::size_t>(block * per_epoch) * cell_bytes);
    auto* measured = reinterpret_cast<double*>(scratch.data);
    const auto spec = *mi::gpu_measure(plan_.settings, length);
    const std::int64_t epochs = batch.series_count / per_epoch;  // the batch starts a block
    for (std::int64_t first = 0; first < epochs; first += block) {
      const std::int64_t last = std::min(first + block, epochs);
      for (std::int64_t d = first - last + 1; d < last - first; ++d) {
        const std::int64_t lo = std::max(first, first - d), hi = std::min(last, last - d);
        mi::GpuBatchBands pair = bands;
        pair.phase = bands.phase + lo * per_epoch * n_pha * length;
        pair.amplitude = bands.amplitude + (lo + d) * per_epoch * n_amp * length;
        if (bands.envelope_phase) pair.envelope_phase = bands.envelope_phase + (lo + d) * per_epoch * cells * length;
        pair.series = (hi - lo) * per_epoch;
        mi::shifted_measure_on_gpu(pair, spec, {observed, 1, 0}, measured, ctx);
        for (std::int64_t e = lo; e < hi; ++e)
          cuda::check(cudaMemcpy2DAsync(pairings + ((e * per_epoch) * block + (e + d - first)) * cells,
                                        static_cast<std::size_t>(block) * cell_bytes,
                                        measured + (e - lo) * per_epoch * cells, cell_bytes, cell_bytes,
                                        static_cast<std::size_t>(per_epoch), cudaMemcpyDeviceToDevice, ctx.stream()),
                      "cudaMemcpy2DAsync (trial pairings)");
      }
    }
  }

  const SurrogatesPlan& plan_;
  // The alignments of the amplitude on each device: 0 (observed), then each surrogate's shift.
  cuda::DeviceConstants<std::int64_t> shifts_;
  std::int64_t largest_shift_;
};

std::unique_ptr<StageKernel> make_surrogates_cuda_kernel(const Stage& stage) {
  return std::make_unique<SurrogatesCudaKernel>(dynamic_cast<const SurrogatesStage&>(stage).planned());
}

}  // namespace pacflow::stages
