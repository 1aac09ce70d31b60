// Stage `wavelet` on a GPU (part of the CUDA plugin): the Morlet decomposition of every series and
// band, each output sample the CPU's own sum (morlet_cuda.hpp).
#include <mutex>
#include <optional>

#include "engine/devices/cuda/kernel.hpp"
#include "stages/common/tensor_names.hpp"
#include "stages/cuda_kernels.hpp"
#include "stages/kernels/analytic/morlet_cuda.hpp"
#include "stages/wavelet/wavelet_stage.hpp"

namespace pacflow::stages {

class WaveletCudaKernel final : public cuda::Kernel {
 public:
  explicit WaveletCudaKernel(const WaveletPlan& plan) : plan_(plan) {}

  void run(Batch& batch, cuda::StageContext& ctx) override {
    using cuda::StageContext;
    std::call_once(flattened_, [&] { banks_.emplace(plan_); });
    const float* x = StageContext::data<float>(batch.at(plan_.input));
    const auto n_pha = static_cast<std::int64_t>(plan_.pha.size()), n_amp = static_cast<std::int64_t>(plan_.amp.size());
    float* phase = StageContext::data<float>(ctx.emplace(batch, tensors::kPhase, {n_pha, plan_.kept}, DType::Float32));
    float* amplitude =
        StageContext::data<float>(ctx.emplace(batch, tensors::kAmplitude, {n_amp, plan_.kept}, DType::Float32));
    morlet::morlet_rows_on_gpu(x, batch.series_count, plan_.length, banks_->pha, true, phase, plan_.first, plan_.kept,
                               ctx);
    morlet::morlet_rows_on_gpu(x, batch.series_count, plan_.length, banks_->amp, false, amplitude, plan_.first,
                               plan_.kept, ctx);
  }

  double workspace_bytes(std::int64_t /*series*/) const override {
    const Banks banks(plan_);
    return morlet::morlet_workspace_bytes(banks.pha) + morlet::morlet_workspace_bytes(banks.amp);
  }

 private:
  struct Banks {
    explicit Banks(const WaveletPlan& plan) : pha(plan.pha), amp(plan.amp) {}
    morlet::FlatBank pha, amp;
  };
  const WaveletPlan& plan_;
  std::once_flag flattened_;
  std::optional<Banks> banks_;  // the taps laid out for the GPU, made when a batch first runs on one
};

std::unique_ptr<StageKernel> make_wavelet_cuda_kernel(const Stage& stage) {
  return std::make_unique<WaveletCudaKernel>(dynamic_cast<const WaveletStage&>(stage).planned());
}

}  // namespace pacflow::stages
