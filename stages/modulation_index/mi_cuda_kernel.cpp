// Stage `mi` on a GPU (part of the CUDA plugin): tort, hr, mvl, ndpac and plv per series
// (pairs=diag), without the optional outputs (gpu_support.hpp, shifted_mi_cuda.hpp).
#include "engine/devices/cuda/kernel.hpp"
#include "stages/common/device_constants.hpp"
#include "stages/common/narrow_cuda.hpp"
#include "stages/cuda_kernels.hpp"
#include "stages/kernels/pac/gpu_support.hpp"
#include "stages/modulation_index/mi_stage.hpp"
#include "stages/kernels/pac/shifted_mi_cuda.hpp"

namespace pacflow::stages {

class MiCudaKernel final : public cuda::Kernel {
 public:
  explicit MiCudaKernel(const ModulationIndexStage& stage) : s_(stage) {}

  std::string why_not() const override {
    if (s_.distributions_ || s_.preferred_phase_)
      return "outputs=distributions,preferred_phase are computed on the CPU only";
    return mi::why_not_on_gpu(s_.settings_, s_.pairs_);
  }

  void run(Batch& batch, cuda::StageContext& ctx) override {
    using cuda::StageContext;
    const bool envelope = mi::needs_envelope_phase(s_.settings_.kind);
    const mi::GpuBatchBands bands{StageContext::data<float>(batch.at("phase")),
                                  StageContext::data<float>(batch.at("amplitude")),
                                  envelope ? StageContext::data<float>(batch.at("envelope_phase")) : nullptr,
                                  batch.series_count, s_.n_pha_, s_.n_amp_, s_.length_};
    const std::int64_t cells = batch.series_count * s_.n_pha_ * s_.n_amp_;
    const SharedMemory values = ctx.scratch(static_cast<std::size_t>(cells) * sizeof(double));
    auto* mi_values = reinterpret_cast<double*>(values.data);
    mi::shifted_measure_on_gpu(bands, *mi::gpu_measure(s_.settings_, s_.length_), {observed_shift_.on(ctx), 1, 0},
                               mi_values, ctx);
    float* pac = StageContext::data<float>(ctx.emplace(batch, "pac", {s_.n_pha_, s_.n_amp_}, DType::Float32));
    cuda::narrow_to_float(mi_values, cells, pac, ctx);
  }

  double workspace_bytes(std::int64_t series) const override {
    const auto spec = mi::gpu_measure(s_.settings_, s_.length_);
    return static_cast<double>(series) *
           (static_cast<double>(s_.n_pha_ * s_.n_amp_) * 8.0 +
            (spec ? mi::shifted_measure_scratch_bytes_per_series(*spec, s_.n_pha_, s_.n_amp_, s_.length_) : 0.0));
  }

 private:
  const ModulationIndexStage& s_;
  cuda::DeviceConstants<std::int64_t> observed_shift_{std::vector<std::int64_t>{0}};
};

std::unique_ptr<StageKernel> make_mi_cuda_kernel(const Stage& stage) {
  return std::make_unique<MiCudaKernel>(dynamic_cast<const ModulationIndexStage&>(stage));
}

}  // namespace pacflow::stages
