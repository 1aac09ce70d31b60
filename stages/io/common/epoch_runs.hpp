#pragma once
// Series are numbered epoch * channels + channel. A batch of consecutive series splits into runs of
// consecutive channels within one epoch: each run is one rectangular block ([1][n][...]) of an
// [E][C][...] array, which is what HDF5 hyperslabs read and write.
#include <algorithm>
#include <cstdint>

namespace pacflow::stages {

// Calls f(epoch, first_channel, channel_count, series_offset_in_batch) for each run of series
// [first, first + count), in order.
template <typename F>
void for_each_epoch_run(std::int64_t first, std::int64_t count, std::int64_t channels, F&& f) {
  for (std::int64_t s = first; s < first + count;) {
    const std::int64_t channel = s % channels;
    const std::int64_t n = std::min(channels - channel, first + count - s);
    f(s / channels, channel, n, s - first);
    s += n;
  }
}

}  // namespace pacflow::stages
