#pragma once
// What the bandpass stage plans that later stages and sinks build on (engine/api/stage.hpp,
// PlanFact): the bands' edges and centres, and the phase bank's filter orders (envelope_phase
// filters the amplitude envelopes with the same bank).
#include <array>
#include <cstdint>
#include <vector>

#include "engine/api/stage.hpp"
#include "stages/kernels/filters/bands.hpp"

namespace pacflow::stages {

using BandEdges = std::vector<std::array<double, 2>>;  // [lo, hi] Hz per band

inline constexpr PlanFact<BandEdges> kPhaseBands{"pha_bands_hz", "bandpass", FactScope::Study};
inline constexpr PlanFact<BandEdges> kAmplitudeBands{"amp_bands_hz", "bandpass", FactScope::Study};
inline constexpr PlanFact<std::vector<double>> kPhaseCentres{"pha_centres_hz", "bandpass", FactScope::Study};
inline constexpr PlanFact<std::vector<double>> kAmplitudeCentres{"amp_centres_hz", "bandpass", FactScope::Study};
inline constexpr PlanFact<std::vector<std::int64_t>> kPhaseFilterOrders{"pha_filter_orders", "bandpass"};

// The bands' edges and centres, as bandpass publishes them (and the stages in its place), and their
// edges among the element's resolved parameters.
inline void publish_bands(PlanContext& ctx, const std::vector<bands::Band>& pha, const std::vector<bands::Band>& amp) {
  ctx.publish(kPhaseBands, bands::edges(pha));
  ctx.publish(kAmplitudeBands, bands::edges(amp));
  ctx.publish(kPhaseCentres, bands::centres(pha));
  ctx.publish(kAmplitudeCentres, bands::centres(amp));
  ctx.resolved()["pha_bands_hz"] = bands::edges(pha);
  ctx.resolved()["amp_bands_hz"] = bands::edges(amp);
}

}  // namespace pacflow::stages
