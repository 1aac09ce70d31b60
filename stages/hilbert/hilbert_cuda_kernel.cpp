// Stage `hilbert` on a GPU (part of the CUDA plugin): the analytic signal with cuFFT, cropped to the
// window the stage planned (analytic_signal_cuda.hpp).
#include "engine/devices/cuda/kernel.hpp"
#include "stages/common/cufft_plans.hpp"
#include "stages/cuda_kernels.hpp"
#include "stages/kernels/analytic/analytic_signal_cuda.hpp"
#include "stages/hilbert/hilbert_stage.hpp"

namespace pacflow::stages {

class HilbertCudaKernel final : public cuda::Kernel {
 public:
  explicit HilbertCudaKernel(const HilbertStage& stage) : s_(stage) {}

  void run(Batch& batch, cuda::StageContext& ctx) override {
    using cuda::StageContext;
    const float* pha_in = StageContext::data<float>(batch.at("filtered_pha"));
    const float* amp_in = StageContext::data<float>(batch.at("filtered_amp"));
    float* phase = StageContext::data<float>(ctx.emplace(batch, "phase", {s_.n_pha_, s_.kept_}, DType::Float32));
    float* amplitude =
        StageContext::data<float>(ctx.emplace(batch, "amplitude", {s_.n_amp_, s_.kept_}, DType::Float32));
    const std::int64_t n = s_.fft_length_;
    hilbert::analytic_rows_on_gpu(pha_in, batch.series_count * s_.n_pha_, s_.length_, n, hilbert::Output::Phase,
                                  phase, ctx, plans_, s_.first_, s_.kept_);
    hilbert::analytic_rows_on_gpu(amp_in, batch.series_count * s_.n_amp_, s_.length_, n, hilbert::Output::Amplitude,
                                  amplitude, ctx, plans_, s_.first_, s_.kept_);
  }

  double workspace_bytes(std::int64_t series) const override {
    return hilbert::analytic_workspace_bytes(series * std::max(s_.n_pha_, s_.n_amp_), s_.fft_length_);
  }

 private:
  const HilbertStage& s_;
  cufft::PlanCache plans_;
};

std::unique_ptr<StageKernel> make_hilbert_cuda_kernel(const Stage& stage) {
  return std::make_unique<HilbertCudaKernel>(dynamic_cast<const HilbertStage&>(stage));
}

}  // namespace pacflow::stages
