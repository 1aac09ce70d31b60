#pragma once
// What the hilbert stage plans that later stages build on (engine/api/stage.hpp, PlanFact): the
// length of its FFT, which envelope_phase uses for the same transform.
#include <cstdint>

#include "engine/api/stage.hpp"

namespace pacflow::stages {

inline constexpr PlanFact<std::int64_t> kHilbertFftLength{"hilbert_fft_length", "hilbert"};

}  // namespace pacflow::stages
