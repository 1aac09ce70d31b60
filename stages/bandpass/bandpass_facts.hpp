#pragma once
// What the bandpass stage plans that later stages and sinks build on (engine/api/stage.hpp,
// PlanFact): the bands' edges and centres, and the phase bank's filter orders (envelope_phase
// filters the amplitude envelopes with the same bank).
#include <array>
#include <cstdint>
#include <vector>

#include "engine/api/stage.hpp"

namespace pacflow::stages {

using BandEdges = std::vector<std::array<double, 2>>;  // [lo, hi] Hz per band

inline constexpr PlanFact<BandEdges> kPhaseBands{"pha_bands_hz", "bandpass", FactScope::Study};
inline constexpr PlanFact<BandEdges> kAmplitudeBands{"amp_bands_hz", "bandpass", FactScope::Study};
inline constexpr PlanFact<std::vector<double>> kPhaseCentres{"pha_centres_hz", "bandpass", FactScope::Study};
inline constexpr PlanFact<std::vector<double>> kAmplitudeCentres{"amp_centres_hz", "bandpass", FactScope::Study};
inline constexpr PlanFact<std::vector<std::int64_t>> kPhaseFilterOrders{"pha_filter_orders", "bandpass"};

}  // namespace pacflow::stages
