#pragma once
// What the surrogates stage plans that sinks build on (engine/api/stage.hpp, PlanFact): the shifts
// of its surrogates and the trial-level test it makes.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/api/stage.hpp"

namespace pacflow::stages {

inline constexpr PlanFact<std::vector<std::int64_t>> kSurrogateShifts{"surrogate_shifts", "surrogates"};
inline constexpr PlanFact<std::string> kTrialTest{"trial_test", "surrogates", FactScope::Study};  // published when it makes one
// With the trial-level test: the epochs it takes (overlapping ones left out) and its permutations
// (every ordering but the observed one, when it enumerates them).
inline constexpr PlanFact<std::int64_t> kTrialEpochs{"trial_epochs", "surrogates"};
inline constexpr PlanFact<std::int64_t> kTrialPermutations{"trial_permutations", "surrogates"};
// The family its correction covers: "channels" (every channel's cells together) or "cells".
inline constexpr PlanFact<std::string> kTrialFamily{"trial_family", "surrogates"};

}  // namespace pacflow::stages
