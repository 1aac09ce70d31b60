#pragma once
// What the surrogates stage plans that sinks build on (engine/api/stage.hpp, PlanFact): the shifts
// of its surrogates and the trial-level test it makes.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/api/stage.hpp"

namespace pacflow::stages {

inline constexpr PlanFact<std::vector<std::int64_t>> kSurrogateShifts{"surrogate_shifts", "surrogates"};
inline constexpr PlanFact<std::string> kTrialTest{"trial_test", "surrogates"};  // published when it makes one

}  // namespace pacflow::stages
