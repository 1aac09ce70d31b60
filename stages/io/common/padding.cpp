#include "stages/io/common/padding.hpp"

#include <cmath>
#include <fmt/format.h>

#include "engine/api/errors.hpp"

namespace pacflow::stages {

std::int64_t pad_samples(const std::optional<Duration>& pad, double fs, std::int64_t series_length) {
  if (!pad) return 0;
  const double exact = pad->samples_exact(fs);
  if (!(exact >= 0.5) || !(exact < 0x1p40))
    throw ParamError("pad", fmt::format("{:g} samples at {:g} Hz; padding must be at least one sample", exact, fs));
  const auto samples = static_cast<std::int64_t>(std::llround(exact));
  if (series_length >= 0 && series_length - 2 * samples < 2)
    throw ParamError("pad", fmt::format("{} samples at each end of series of {} samples leave {} to analyse; the "
                                        "series must hold the padding and at least 2 samples between",
                                        samples, series_length, series_length - 2 * samples));
  return samples;
}

}  // namespace pacflow::stages
