// Stage `bandpass` on a GPU (part of the CUDA plugin): both filter banks with cuFFT, the same
// spectra and per-bin products as the CPU (filtfilt_cuda.hpp).
#include <mutex>
#include <optional>

#include "engine/devices/cuda/kernel.hpp"
#include "stages/bandpass/bandpass_stage.hpp"
#include "stages/common/tensor_names.hpp"
#include "stages/cuda_kernels.hpp"
#include "stages/kernels/filters/filtfilt_cuda.hpp"

namespace pacflow::stages {

class BandpassCudaKernel final : public cuda::Kernel {
 public:
  explicit BandpassCudaKernel(const BandpassPlan& plan) : plan_(plan) {}

  void run(Batch& batch, cuda::StageContext& ctx) override {
    using cuda::StageContext;
    const float* signal = StageContext::data<float>(batch.at(plan_.signal));
    const auto n_pha = static_cast<std::int64_t>(plan_.pha.bands.size());
    const auto n_amp = static_cast<std::int64_t>(plan_.amp.bands.size());
    const std::int64_t length = plan_.length;
    float* pha = StageContext::data<float>(ctx.emplace(batch, tensors::kFilteredPha, {n_pha, length}, DType::Float32));
    float* amp = StageContext::data<float>(ctx.emplace(batch, tensors::kFilteredAmp, {n_amp, length}, DType::Float32));
    pha_.get(plan_.pha).apply(signal, batch.series_count, pha, ctx, plans_);
    amp_.get(plan_.amp).apply(signal, batch.series_count, amp, ctx, plans_);
  }

  double workspace_bytes(std::int64_t series) const override {
    // The banks run one after the other; each one's scratch is released before the next starts.
    const auto bank_bytes = [&](const BandpassBank& bank) {
      return fir::FiltFiltBankOnGpu::workspace_bytes(series, bank.fft_size, bank.bands.size());
    };
    return std::max(bank_bytes(plan_.pha), bank_bytes(plan_.amp));
  }

 private:
  // A bank's filters for GPUs, made when a batch first runs on one (after the stage's prepare(); a
  // CPU run keeps no second copy of the spectra), then uploaded to each GPU on first use there.
  class GpuBank {
   public:
    fir::FiltFiltBankOnGpu& get(const BandpassBank& bank) {
      std::call_once(once_, [&] { filters_.emplace(*bank.filters); });
      return *filters_;
    }

   private:
    std::once_flag once_;
    std::optional<fir::FiltFiltBankOnGpu> filters_;
  };

  const BandpassPlan& plan_;
  GpuBank pha_;
  GpuBank amp_;
  cufft::PlanCache plans_;
};

std::unique_ptr<StageKernel> make_bandpass_cuda_kernel(const Stage& stage) {
  return std::make_unique<BandpassCudaKernel>(dynamic_cast<const BandpassStage&>(stage).planned());
}

}  // namespace pacflow::stages
