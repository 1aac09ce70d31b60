#pragma once
// Morlet decomposition (morlet.hpp) of many rows on a GPU: one thread per output sample, each the
// same per-sample sum as the CPU's (morlet::morlet_sample), the wavelets' taps uploaded once per GPU.
#include <cstdint>
#include <vector>

#include "engine/devices/cuda/stage_context.hpp"
#include "stages/kernels/analytic/morlet.hpp"

namespace pacflow::morlet {

// The taps of a bank of wavelets, one after the other, as the GPU reads them.
struct FlatBank {
  std::vector<double> re, im;
  std::vector<std::int64_t> layout;  // per wavelet: first tap, taps, offset
  explicit FlatBank(const std::vector<Wavelet>& wavelets);
};

// out [series][bands][kept]: arg (phase) or |.| of the decomposition of each device series
// in [series][length] by each wavelet of `bank`, samples [first, first + kept), on ctx's stream.
void morlet_rows_on_gpu(const float* in, std::int64_t series, std::int64_t length, const FlatBank& bank, bool phase,
                        float* out, std::int64_t first, std::int64_t kept, const cuda::StageContext& ctx);

// Device scratch for a bank's taps.
double morlet_workspace_bytes(const FlatBank& bank);

}  // namespace pacflow::morlet
