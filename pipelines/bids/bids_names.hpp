#pragma once
// BIDS file names: entities (key-value pairs joined by '_'), then a suffix and an extension.
//
//   sub-01_ses-1_task-oddball_run-1_eeg.vhdr → sub=01 ses=1 task=oddball run=1, suffix eeg, .vhdr
//
// The stem (the name before _suffix) names a recording's companions (its _channels.tsv and
// _events.tsv) and is the recording's id in a pacflow dataset.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pacflow::bids {

struct BidsName {
  std::vector<std::pair<std::string, std::string>> entities;  // in the name's order
  std::string suffix;                                         // "eeg"
  std::string extension;  // from the name's first '.', lower case: ".edf", ".nii.gz"
  std::string stem;       // the entities as written: "sub-01_ses-1_task-oddball_run-1"

  // The label of entity `key` ("run" → "1"), if the name has it.
  std::optional<std::string> entity(std::string_view key) const;
};

// The parts of `filename` (no folder), or nothing when it is not a BIDS name: it does not start with
// sub-<label>, an entity is not key-label (letters and digits each), or there is no suffix.
std::optional<BidsName> parse_bids_name(const std::string& filename);

// The same, without requiring sub-<label> first or any entity: the names of files that apply to
// several recordings by the inheritance principle (task-oddball_events.tsv at the root).
std::optional<BidsName> parse_entity_name(const std::string& filename);

// Orders stems as people count: digits by their value ("run-2" before "run-10"), the rest as text.
bool natural_less(std::string_view a, std::string_view b);

}  // namespace pacflow::bids
