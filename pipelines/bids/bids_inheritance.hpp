#pragma once
// The BIDS inheritance principle (BIDS 1.10, "Common principles") for a recording's tabular
// companions (_channels.tsv, _events.tsv): a file applies to a recording when its suffix and
// extension are those asked for, its entities are some of the recording's with the same labels,
// and it lies in the recording's folder or one above it, up to the dataset's root. Tabular files are
// not merged: the one in the deepest such folder is used; JSON sidecars (_eeg.json) are merged, the
// deeper file's keys replacing the higher one's (bids_sidecar.hpp). Two that apply in one folder are
// refused (the specification allows at most one per level).
//
//   root/task-oddball_events.tsv                     applies to every recording of task oddball
//   root/sub-01/sub-01_task-oddball_channels.tsv     to sub-01's, in every session and run
//   root/sub-01/eeg/sub-01_task-oddball_run-1_…      to that run alone, and wins over both
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "pipelines/bids/bids_names.hpp"

namespace pacflow::bids {

// The `suffix` + `extension` file ("events", ".tsv") that applies to `recording` (named `name`)
// under `root`, if any. Throws InputError naming both files when two apply in one folder.
std::optional<std::filesystem::path> applicable_file(const std::filesystem::path& root,
                                                     const std::filesystem::path& recording, const BidsName& name,
                                                     const std::string& suffix, const std::string& extension);

// Every such file, one per folder, from the root down to the recording's folder.
std::vector<std::filesystem::path> applicable_files(const std::filesystem::path& root,
                                                    const std::filesystem::path& recording, const BidsName& name,
                                                    const std::string& suffix, const std::string& extension);

}  // namespace pacflow::bids
