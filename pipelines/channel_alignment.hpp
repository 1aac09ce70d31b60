#pragma once
// A dataset's recordings matched channel by channel by name (issue 38: montages that list the same
// electrodes in another order): each recording's arrays are put in the first recording's channel
// order before they are stacked and tested across subjects.
#include <optional>
#include <string>
#include <vector>

#include "stages/io/common/result_arrays.hpp"

namespace pacflow {

// order[c]: the index in `names` of first[c]. Nothing when the two are not the same names in some
// order (one unnamed, a name missing or given twice), or when `results` has channel pairs (mi
// pairs=: a pair names channels by index, so another order would pair other electrodes).
std::optional<std::vector<std::size_t>> channel_order(const stages::ResultArrays& results,
                                                      const std::vector<std::string>& first);

// `results` with the axis named "channels" of every array, and the channel names, in `order`
// (channel_order's). Arrays without that axis are copied as they are.
stages::ResultArrays reordered_channels(const stages::ResultArrays& results, const std::vector<std::size_t>& order);

}  // namespace pacflow
