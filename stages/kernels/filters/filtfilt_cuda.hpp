#pragma once
// The FFT filtfilt bank (filtfilt_fft.hpp) on a GPU: the same extension, the same filter spectra
// and the same per-bin product (filtfilt_math.hpp), with cuFFT in place of FFTW.
#include <cstdint>
#include <optional>

#include "engine/devices/cuda/stage_context.hpp"
#include "stages/common/cufft_plans.hpp"
#include "stages/common/device_constants.hpp"
#include "stages/kernels/filters/filtfilt_fft.hpp"

namespace pacflow::fir {

class FiltFiltBankOnGpu {
 public:
  explicit FiltFiltBankOnGpu(const FiltFiltBank& bank);

  // Filters `series` device series [series][T] into device out [series][bands][T], on ctx's stream.
  void apply(const float* signal, std::int64_t series, float* out, const cuda::StageContext& ctx,
             cufft::PlanCache& plans);
  // Device scratch for a batch of `series` with a bank of `bands` bands at FFT length `fft_size`
  // (extension, spectra, products, inverse transforms, work areas; buffers hold whole cuFFT calls).
  static double workspace_bytes(std::int64_t series, std::size_t fft_size, std::size_t bands);

 private:
  const FiltFiltBank& bank_;
  cuda::DeviceConstants<float> spectra_;  // [band][bin][re, im]
  cuda::DeviceConstants<std::int64_t> orders_;
};

}  // namespace pacflow::fir
