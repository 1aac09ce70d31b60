// Stage `bandpass` on a GPU (part of the CUDA plugin): both filter banks with cuFFT, the same
// spectra and per-bin products as the CPU (filtfilt_cuda.hpp).
#include <mutex>
#include <optional>

#include "engine/devices/cuda/kernel.hpp"
#include "stages/bandpass/bandpass_stage.hpp"
#include "stages/kernels/filters/filtfilt_cuda.hpp"
#include "stages/cuda_kernels.hpp"

namespace pacflow::stages {

class BandpassCudaKernel final : public cuda::Kernel {
 public:
  explicit BandpassCudaKernel(const BandpassStage& stage) : stage_(stage) {}

  void run(Batch& batch, cuda::StageContext& ctx) override {
    using cuda::StageContext;
    const float* signal = StageContext::data<float>(batch.at(stage_.signal_));
    const auto n_pha = static_cast<std::int64_t>(stage_.pha_.bands.size());
    const auto n_amp = static_cast<std::int64_t>(stage_.amp_.bands.size());
    const std::int64_t length = stage_.length_;
    float* pha = StageContext::data<float>(ctx.emplace(batch, "filtered_pha", {n_pha, length}, DType::Float32));
    float* amp = StageContext::data<float>(ctx.emplace(batch, "filtered_amp", {n_amp, length}, DType::Float32));
    pha_.get(stage_.pha_).apply(signal, batch.series_count, pha, ctx, plans_);
    amp_.get(stage_.amp_).apply(signal, batch.series_count, amp, ctx, plans_);
  }

  double workspace_bytes(std::int64_t series) const override {
    // The banks run one after the other; each one's scratch is released before the next starts.
    const auto bank_bytes = [&](const BandpassStage::Bank& bank) {
      return fir::FiltFiltBankOnGpu::workspace_bytes(series, bank.fft_size, bank.bands.size());
    };
    return std::max(bank_bytes(stage_.pha_), bank_bytes(stage_.amp_));
  }

 private:
  // A bank's filters for GPUs, made when a batch first runs on one (after the stage's prepare(); a
  // CPU run keeps no second copy of the spectra), then uploaded to each GPU on first use there.
  class GpuBank {
   public:
    fir::FiltFiltBankOnGpu& get(const BandpassStage::Bank& bank) {
      std::call_once(once_, [&] { filters_.emplace(*bank.filters); });
      return *filters_;
    }

   private:
    std::once_flag once_;
    std::optional<fir::FiltFiltBankOnGpu> filters_;
  };

  const BandpassStage& stage_;
  GpuBank pha_;
  GpuBank amp_;
  cufft::PlanCache plans_;
};

std::unique_ptr<StageKernel> make_bandpass_cuda_kernel(const Stage& stage) {
  return std::make_unique<BandpassCudaKernel>(dynamic_cast<const BandpassStage&>(stage));
}

}  // namespace pacflow::stages
