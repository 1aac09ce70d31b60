#pragma once
// Planning for stages that combine the epochs of the input (erpac, swap_trials surrogates): they
// need the epochs as the first leading dim, and hold the whole input in one batch.
#include <cstdint>
#include <string>

#include "engine/api/stage.hpp"

namespace pacflow::stages {

// The number of epochs of an input laid out [epochs]…[time]; throws InputError(`refusal`) otherwise.
std::int64_t epochs_of(const StreamInfo& stream, const std::string& refusal);

// Warns, naming `who`, when the whole input's phase and amplitude (float32, n_pha + n_amp bands of
// `length` samples per series) take more than 1 GiB in one batch.
void warn_if_whole_input_is_large(PlanContext& ctx, const std::string& who, std::int64_t n_pha, std::int64_t n_amp,
                                  std::int64_t length);

}  // namespace pacflow::stages
