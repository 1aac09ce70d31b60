#include "stages/modulation_index/binned_amplitude.hpp"

#include <algorithm>

#include "stages/modulation_index/mi_math.hpp"

namespace pacflow::mi {

void phase_runs(std::span<const float> phase, int bins, PhaseRuns& runs) {
  runs.start.clear();
  runs.end.clear();
  runs.bin.clear();
  runs.counts.assign(static_cast<std::size_t>(bins), 0);
  const auto t = static_cast<std::int32_t>(phase.size());
  std::int32_t i = 0;
  while (i < t) {
    const int b = phase_bin(phase[static_cast<std::size_t>(i)], bins);
    std::int32_t j = i + 1;
    while (j < t && phase_bin(phase[static_cast<std::size_t>(j)], bins) == b) ++j;
    runs.start.push_back(i);
    runs.end.push_back(j);
    runs.bin.push_back(static_cast<std::uint16_t>(b));
    runs.counts[static_cast<std::size_t>(b)] += j - i;
    i = j;
  }
}

void wrapped_prefix_sums(std::span<const float> amplitude, std::vector<double>& prefix) {
  const std::size_t t = amplitude.size();
  prefix.resize(2 * t + 1);
  prefix[0] = 0;
  double acc = 0;
  for (std::size_t i = 0; i < 2 * t; ++i) {
    acc += static_cast<double>(amplitude[i < t ? i : i - t]);
    prefix[i + 1] = acc;
  }
}

std::vector<std::vector<double>> wrapped_prefix_sums(const float* amplitude, std::int64_t bands, std::int64_t length) {
  const auto t = static_cast<std::size_t>(length);
  std::vector<std::vector<double>> prefix(static_cast<std::size_t>(bands));
  for (std::size_t a = 0; a < prefix.size(); ++a) wrapped_prefix_sums({amplitude + a * t, t}, prefix[a]);
  return prefix;
}

void binned_sums(const PhaseRuns& runs, const double* prefix, std::int64_t shift, double* sums, int bins) {
  std::fill(sums, sums + bins, 0.0);
  const std::size_t n = runs.start.size();
  const double* p = prefix + shift;
  for (std::size_t r = 0; r < n; ++r) sums[runs.bin[r]] += p[runs.end[r]] - p[runs.start[r]];
}

}  // namespace pacflow::mi
