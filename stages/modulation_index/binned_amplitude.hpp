#pragma once
// Sums of amplitude per phase bin, for the observed alignment and for circular shifts of the
// amplitude, computed from runs of equal phase bins and prefix sums of the amplitude: a run
// [a, b) contributes P[b + s] − P[a + s], one subtraction per run instead of one add per sample.
// Prefix sums are in double, so long series keep full precision.
#include <cstdint>
#include <span>
#include <vector>

namespace pacflow::mi {

struct PhaseRuns {
  std::vector<std::int32_t> start;  // first sample of each run
  std::vector<std::int32_t> end;    // one past its last sample (the next run's start; T for the last)
  std::vector<std::uint16_t> bin;
  std::vector<std::int64_t> counts;  // samples per bin
};

// Splits a phase series into runs of equal bin.
void phase_runs(std::span<const float> phase, int bins, PhaseRuns& runs);

// P[i] = Σ_{t<i} A[t mod T] for i in [0, 2T] (length 2T + 1): enough for any shift in [0, T).
void wrapped_prefix_sums(std::span<const float> amplitude, std::vector<double>& prefix);

// Wrapped prefix sums of each of `bands` amplitude series of `length` samples stored back to back.
std::vector<std::vector<double>> wrapped_prefix_sums(const float* amplitude, std::int64_t bands, std::int64_t length);

// sums[j] = Σ over samples t in bin j of A((t + shift) mod T), 0 <= shift < T.
void binned_sums(const PhaseRuns& runs, const double* prefix, std::int64_t shift, double* sums, int bins);

}  // namespace pacflow::mi
