#pragma once
// A recording's channels.tsv (…_channels.tsv beside it: columns name, type, units and, optionally,
// status good|bad): the channels it marks bad are left out of the recording, by the channels= its
// reader is given.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/api/params.hpp"

namespace pacflow::bids {

struct BidsChannels {
  std::filesystem::path file;
  std::vector<std::string> names;  // in the file's order (the recording's)
  std::vector<bool> bad;           // status=bad, per name
};

// Reads `file`. Throws InputError naming the file (and line) when it has no name column.
BidsChannels read_bids_channels(const std::filesystem::path& file);

// The channels= of a recording: `given` (the dataset's channels=), refused (InputError naming
// channels.tsv) when it selects a channel marked bad; else, when some channel is bad, every other
// channel in the file's order; else nothing (the reader's default, every channel). Throws when every
// channel is bad.
std::optional<json> recording_channels(const std::optional<json>& given, const BidsChannels& channels);

}  // namespace pacflow::bids
