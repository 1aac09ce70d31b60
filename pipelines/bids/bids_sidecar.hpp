#pragma once
// A BIDS recording's metadata sidecar, <…>_eeg.json or <…>_ieeg.json (BIDS 1.10, "Electroencephalography":
// SamplingFrequency, PowerLineFrequency, EEGReference, …), as the inheritance principle composes it:
// every applicable file from the dataset's root down to the recording's folder, merged, a deeper
// file's keys replacing a higher one's (bids_inheritance.hpp).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipelines/bids/bids_names.hpp"

namespace pacflow::bids {

struct RecordingSidecar {
  nlohmann::json metadata = nlohmann::json::object();  // the merged keys; empty: no sidecar applies
  std::vector<std::filesystem::path> files;              // the files merged, from the root down
};

// The `datatype` ("eeg", "ieeg") sidecar of `recording` (named `name`) under `root`. Throws
// InputError naming a file that cannot be read, is not JSON or is not a JSON object, or whose
// SamplingFrequency or PowerLineFrequency is not a positive number (PowerLineFrequency may be "n/a").
RecordingSidecar read_recording_sidecar(const std::filesystem::path& root, const std::filesystem::path& recording,
                                        const BidsName& name, const std::string& datatype);

// The warning for a recording whose file's sample rate is not its sidecar's SamplingFrequency;
// nothing when they agree or the sidecar has none.
std::optional<std::string> sampling_frequency_warning(const std::string& id, const nlohmann::json& metadata,
                                                      double file_rate_hz);

}  // namespace pacflow::bids
