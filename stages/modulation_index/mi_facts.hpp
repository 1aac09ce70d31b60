#pragma once
// What the mi stage plans that later stages and sinks build on (engine/api/stage.hpp, PlanFact):
// the measure and its settings (surrogates computes the same measure), the channel pairs, and the
// names a plot gives the measure.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/api/stage.hpp"
#include "stages/kernels/pac/methods/method.hpp"
#include "stages/kernels/pac/pairs.hpp"

namespace pacflow::stages {

using ChannelPairs = std::vector<std::array<std::int64_t, 2>>;  // (phase channel, amplitude channel)

inline constexpr PlanFact<mi::MethodSettings> kMiSettings{"mi_settings", "mi"};
inline constexpr PlanFact<mi::PairSpec> kMiPairs{"mi_pairs", "mi", FactScope::Study};  // pairs= as read
inline constexpr PlanFact<ChannelPairs> kChannelPairs{"channel_pairs", "mi"};  // published unless diag
inline constexpr PlanFact<int> kMiBins{"mi_bins", "mi", FactScope::Study};
inline constexpr PlanFact<std::string> kMiMethod{"mi_method", "mi", FactScope::Study};            // tort, mvl, …
inline constexpr PlanFact<std::string> kMiMethodName{"mi_method_name", "mi", FactScope::Study};   // its title
inline constexpr PlanFact<std::string> kMiMeasure{"mi_measure", "mi", FactScope::Study};          // what its values are

}  // namespace pacflow::stages
