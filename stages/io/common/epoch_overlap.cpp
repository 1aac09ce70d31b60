#include "stages/io/common/epoch_overlap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/api/errors.hpp"

namespace pacflow::stages {

void describe_epoch_overlap(const std::vector<std::int64_t>& starts, std::int64_t length, double fs,
                            std::optional<std::int64_t> step, StreamInfo& info) {
  std::vector<std::int64_t> by_time(starts.size());  // epoch indices in the order of their starts
  std::iota(by_time.begin(), by_time.end(), 0);
  std::stable_sort(by_time.begin(), by_time.end(), [&](auto a, auto b) { return starts[a] < starts[b]; });
  std::int64_t overlapping = 0, first_at = -1;
  for (std::size_t i = 1; i < by_time.size(); ++i)
    if (starts[by_time[i]] - starts[by_time[i - 1]] < length && overlapping++ == 0) first_at = starts[by_time[i - 1]];
  info.description["epoching"]["overlapping_pairs"] = overlapping;
  if (overlapping == 0) return;
  info.epochs_not_exchangeable = fmt::format(
      "{} pair{} of consecutive epochs overlap in time (the first at {:g} s; epochs of {:g} s{}), so an epoch's phase "
      "paired with a neighbour's amplitude shares samples with its own",
      overlapping, overlapping == 1 ? "" : "s", static_cast<double>(first_at) / fs, static_cast<double>(length) / fs,
      step ? fmt::format(" every {:g} s", static_cast<double>(*step) / fs)
           : std::string(" around events closer than that"));
  // The most epochs no two of which overlap: in order of their starts, each that starts at least an
  // epoch after the last one kept (optimal for intervals of one length).
  std::vector<std::int64_t>& kept = info.exchangeable_epochs;
  kept.clear();
  for (std::int64_t e : by_time)
    if (kept.empty() || starts[e] - starts[kept.back()] >= length) kept.push_back(e);
  std::sort(kept.begin(), kept.end());
  info.description["epoching"]["non_overlapping_epochs"] = kept.size();
}

void describe_array_epoch_step(const std::optional<Duration>& step, bool epochs_axis, StreamInfo& info) {
  if (!step) return;
  if (!epochs_axis || info.leading_names.empty() || info.leading_names[0] != "epochs")
    throw ParamError("epoch_step", "the array has no epochs axis (layout= with E) whose epochs could overlap");
  const double samples = step->samples_exact(info.sample_rate);
  if (!(samples >= 1) || samples != std::floor(samples))
    throw ParamError("epoch_step", fmt::format("{:g} samples at {:g} Hz is not a whole number of samples of at least "
                                               "one",
                                               samples, info.sample_rate));
  const auto distance = static_cast<std::int64_t>(samples);
  std::vector<std::int64_t> starts(static_cast<std::size_t>(info.leading_dims[0]));
  for (std::size_t e = 0; e < starts.size(); ++e) starts[e] = static_cast<std::int64_t>(e) * distance;
  info.description["epoching"]["step_samples"] = distance;
  describe_epoch_overlap(starts, info.series_length, info.sample_rate, distance, info);
}

}  // namespace pacflow::stages
