// Stage `mi` on a GPU (part of the CUDA plugin): tort, hr, mvl, ndpac and plv per series
// (pairs=diag), without the optional outputs (gpu_support.hpp, shifted_mi_cuda.hpp).
#include "engine/devices/cuda/kernel.hpp"
#include "stages/common/device_constants.hpp"
#include "stages/common/narrow_cuda.hpp"
#include "stages/common/tensor_names.hpp"
#include "stages/cuda_kernels.hpp"
#include "stages/kernels/pac/gpu_support.hpp"
#include "stages/kernels/pac/shifted_mi_cuda.hpp"
#include "stages/modulation_index/mi_stage.hpp"

namespace pacflow::stages {

class MiCudaKernel final : public cuda::Kernel {
 public:
  explicit MiCudaKernel(const MiPlan& plan) : plan_(plan) {}

  std::string why_not() const override {
    if (plan_.distributions || plan_.preferred_phase)
      return "outputs=distributions,preferred_phase are computed on the CPU only";
    return mi::why_not_on_gpu(plan_.settings, plan_.pairs);
  }

  void run(Batch& batch, cuda::StageContext& ctx) override {
    using cuda::StageContext;
    const bool envelope = mi::needs_envelope_phase(plan_.settings.kind);
    const mi::GpuBatchBands bands{StageContext::data<float>(batch.at(tensors::kPhase)),
                                  StageContext::data<float>(batch.at(tensors::kAmplitude)),
                                  envelope ? StageContext::data<float>(batch.at(tensors::kEnvelopePhase)) : nullptr,
                                  batch.series_count, plan_.n_pha, plan_.n_amp, plan_.length};
    const std::int64_t cells = batch.series_count * plan_.n_pha * plan_.n_amp;
    const SharedMemory values = ctx.scratch(static_cast<std::size_t>(cells) * sizeof(double));
    auto* mi_values = reinterpret_cast<double*>(values.data);
    mi::shifted_measure_on_gpu(bands, *mi::gpu_measure(plan_.settings, plan_.length), {observed_shift_.on(ctx), 1, 0},
                               mi_values, ctx);
    float* pac =
        StageContext::data<float>(ctx.emplace(batch, tensors::kPac, {plan_.n_pha, plan_.n_amp}, DType::Float32));
    cuda::narrow_to_float(mi_values, cells, pac, ctx);
  }

  double workspace_bytes(std::int64_t series) const override {
    const auto spec = mi::gpu_measure(plan_.settings, plan_.length);
    return static_cast<double>(series) *
           (static_cast<double>(plan_.n_pha * plan_.n_amp) * 8.0 +
            (spec ? mi::shifted_measure_scratch_bytes_per_series(*spec, plan_.n_pha, plan_.n_amp, plan_.length) : 0.0));
  }

 private:
  const MiPlan& plan_;
  cuda::DeviceConstants<std::int64_t> observed_shift_{std::vector<std::int64_t>{0}};
};

std::unique_ptr<StageKernel> make_mi_cuda_kernel(const Stage& stage) {
  return std::make_unique<MiCudaKernel>(dynamic_cast<const ModulationIndexStage&>(stage).planned());
}

}  // namespace pacflow::stages
