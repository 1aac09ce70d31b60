#pragma once
// The range of sample values the pipeline computes with exactly: sources refuse (or, by nan_policy,
// replace or leave out) samples outside it, and the synthetic source's parameters stay inside it;
// the stages that read a signal (bandpass) or given amplitudes (given_bands) refuse a series whose
// largest magnitude is too small to survive the float32 arithmetic.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <string>
#include <vector>

namespace pacflow::stages {

// The largest sample magnitude accepted. The filters and the analytic signal compute in float32
// (largest value 3.4e38). A forward FFT of n points sums up to n samples of the odd extension (at
// most 3|x| each), a filtered sample is at most a few |x|, and the analytic signal's unnormalised
// inverse FFT is n times an envelope of at most a few dozen |x|: for n up to 2^31 every intermediate
// value stays below about 1e12 |x|. (Measured: a 2048-sample series overflows its filter FFT from
// |x| ≈ 1e35.) At 1e20 that leaves six orders of magnitude, while no recording in any unit comes
// near it (a volt is 1e6 µV; int32 ADC counts stay below 2.2e9).
inline constexpr double kLargestSample = 1e20;

// A sample the pipeline can compute with: finite and within ±kLargestSample.
inline bool usable_sample(float v) { return v >= -kLargestSample && v <= kLargestSample; }  // false for NaN

// The smallest largest-magnitude a series (or a given amplitude row) may have. Below float32's
// smallest normal number (1.2e-38) values are subnormal (a handful of significant bits, down to
// 1.4e-45) and flush to 0: a recording scaled by 1e-44 once band-passed to all zeros, so MI came out
// exactly 0 (or 1, when one sample survived in one bin) and every z-score NaN, with exit code 0. The
// filters multiply by taps as small as ~1e-4 and the FFTs by 1/n (n up to 2^31, ~5e-10), so
// intermediate values reach ~1e-14 |x|: from 1e-20 they stay above 1e-34, normal, the mirror of
// kLargestSample's margin. No unit comes near it (a picoampere is 1e-12 A).
inline constexpr double kSmallestPeak = 1e-20;

// max |x[t]| over n samples (0 for n = 0; NaN samples are ignored).
inline float peak_magnitude(const float* x, std::int64_t n) {
  float peak = 0;
  for (std::int64_t t = 0; t < n; ++t) peak = std::max(peak, std::abs(x[t]));
  return peak;
}

// A series too small to compute with: some sample is not 0, but none reaches kSmallestPeak. (An
// all-zero series is flat, which the sources refuse, or the stand-in for a series nan_policy=skip
// left out, whose results the engine turns into NaN.)
inline bool too_small_series(float peak) { return peak > 0 && peak < kSmallestPeak; }

// "epoch 1, channel 2" for series `index` of a stream laid out `dims` named `names` ("epochs",
// "channels"; "series 7" when unnamed).
inline std::string series_label(std::int64_t index, const std::vector<std::int64_t>& dims,
                                const std::vector<std::string>& names) {
  if (dims.empty() || names.size() != dims.size()) return fmt::format("series {}", index);
  std::vector<std::string> parts(dims.size());
  for (std::size_t d = dims.size(); d-- > 0;) {
    const std::int64_t size = std::max<std::int64_t>(dims[d], 1);
    std::string name = names[d];
    if (name.size() > 1 && name.back() == 's') name.pop_back();  // "epochs" -> "epoch"
    parts[d] = fmt::format("{} {}", name, index % size);
    index /= size;
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace pacflow::stages
