#pragma once
// The range of sample values the pipeline computes with exactly: sources refuse (or, by nan_policy,
// replace or leave out) samples outside it, and the synthetic source's parameters stay inside it.
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

}  // namespace pacflow::stages
