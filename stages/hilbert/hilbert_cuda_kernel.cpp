// Stage `hilbert` on a GPU (part of the CUDA plugin): the analytic signal with cuFFT, cropped to the
// window the stage planned (analytic_signal_cuda.hpp).
#include "engine/devices/cuda/kernel.hpp"
#include "stages/common/cufft_plans.hpp"
#include "stages/common/tensor_names.hpp"
#include "stages/cuda_kernels.hpp"
#include "stages/hilbert/hilbert_stage.hpp"
#include "stages/kernels/analytic/analytic_signal_cuda.hpp"

namespace pacflow::stages {

class HilbertCudaKernel final : public cuda::Kernel {
 public:
  explicit HilbertCudaKernel(const HilbertPlan& plan) : plan_(plan) {}

  void run(Batch& batch, cuda::StageContext& ctx) override {
    using cuda::StageContext;
    const float* pha_in = StageContext::data<float>(batch.at(tensors::kFilteredPha));
    const float* amp_in = StageContext::data<float>(batch.at(tensors::kFilteredAmp));
    float* phase =
        StageContext::data<float>(ctx.emplace(batch, tensors::kPhase, {plan_.n_pha, plan_.kept}, DType::Float32));
    float* amplitude =
        StageContext::data<float>(ctx.emplace(batch, tensors::kAmplitude, {plan_.n_amp, plan_.kept}, DType::Float32));
    const std::int64_t n = plan_.fft_length;
    hilbert::analytic_rows_on_gpu(pha_in, batch.series_count * plan_.n_pha, plan_.length, n, hilbert::Output::Phase,
                                  phase, ctx, plans_, plan_.first, plan_.kept);
    hilbert::analytic_rows_on_gpu(amp_in, batch.series_count * plan_.n_amp, plan_.length, n, hilbert::Output::Amplitude,
                                  amplitude, ctx, plans_, plan_.first, plan_.kept);
  }

  double workspace_bytes(std::int64_t series) const override {
    return hilbert::analytic_workspace_bytes(series * std::max(plan_.n_pha, plan_.n_amp), plan_.fft_length);
  }

 private:
  const HilbertPlan& plan_;
  cufft::PlanCache plans_;
};

std::unique_ptr<StageKernel> make_hilbert_cuda_kernel(const Stage& stage) {
  return std::make_unique<HilbertCudaKernel>(dynamic_cast<const HilbertStage&>(stage).planned());
}

}  // namespace pacflow::stages
