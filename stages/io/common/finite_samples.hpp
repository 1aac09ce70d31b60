#pragma once
// Sources refuse NaN and infinite samples: one bad sample would silently turn a whole series' result
// into NaN. The message names the file and where the sample sits.
#include <cstdint>
#include <string>

namespace pacflow::stages {

// Checks series [first, first + count) held in `samples` ([count][length], series index =
// (epoch * channels + channel) * segments + segment). Throws InputError "FILE: NaN at epoch E,
// channel C[, segment S], sample T" for the first sample that is not finite.
void require_finite_samples(const std::string& file, const float* samples, std::int64_t first, std::int64_t count,
                            std::int64_t length, std::int64_t channels, std::int64_t segments = 1);

}  // namespace pacflow::stages
