#pragma once
// The tensors the stages that end the signal path write for the measures: `phase` [n_pha][T] and
// `amplitude` [n_amp][T] (hilbert, and in place of bandpass and hilbert, wavelet and given_bands).
#include <cstdint>
#include <string>

#include "engine/api/stage.hpp"
#include "stages/common/tensor_names.hpp"

namespace pacflow::stages {

// Declares both, `length` samples per band; `*_result`: kept as results (outputs=); `how` ends their
// descriptions (", as given").
inline void declare_phase_amplitude(PlanContext& ctx, std::int64_t n_pha, std::int64_t n_amp, std::int64_t length,
                                    bool phase_result, bool amplitude_result, const std::string& how = "") {
  TensorDecl phase{tensors::kPhase, {n_pha, length}, DType::Float32, phase_result,
                   "instantaneous phase in (-pi, pi]" + how};
  phase.axes = {"phase_bands", "times"};
  TensorDecl amplitude{tensors::kAmplitude, {n_amp, length}, DType::Float32, amplitude_result,
                       "instantaneous amplitude" + how};
  amplitude.axes = {"amplitude_bands", "times"};
  ctx.declare(std::move(phase));
  ctx.declare(std::move(amplitude));
}

}  // namespace pacflow::stages
