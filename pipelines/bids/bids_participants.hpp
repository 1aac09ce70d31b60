#pragma once
// A BIDS dataset's participants.tsv (column participant_id: sub-01, …) against its subjects'
// folders and the recordings found: what does not agree, as warnings (a dataset still runs).
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace pacflow::bids {

// Warnings for a subject folder participants.tsv does not list, and for a subject it lists with no
// recording of the task (`what`: "eeg recording of task oddball"). Only subjects `selected` keeps
// (subjects=) are named. None when there is no participants.tsv. Throws InputError naming the file
// when it cannot be read or has no participant_id column.
std::vector<std::string> participant_warnings(const std::filesystem::path& root,
                                              const std::vector<std::string>& folders,
                                              const std::set<std::string>& recorded, const std::string& what,
                                              const std::function<bool(const std::string&)>& selected);

}  // namespace pacflow::bids
