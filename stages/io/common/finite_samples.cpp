#include "stages/io/common/finite_samples.hpp"

#include <cmath>
#include <fmt/format.h>

#include "engine/errors.hpp"

namespace pacflow::stages {

void require_finite_samples(const std::string& file, const float* samples, std::int64_t first, std::int64_t count,
                            std::int64_t length, std::int64_t channels, std::int64_t segments) {
  for (std::int64_t i = 0; i < count * length; ++i) {
    if (std::isfinite(samples[i])) continue;
    const std::int64_t series = first + i / length;
    const std::int64_t row = series / segments;  // epoch × channels + channel
    throw InputError(fmt::format("{}: {} at epoch {}, channel {}{}, sample {}", file,
                                 std::isnan(samples[i]) ? "NaN" : "infinite value", row / channels, row % channels,
                                 segments > 1 ? fmt::format(", segment {}", series % segments) : "", i % length));
  }
}

}  // namespace pacflow::stages
