#pragma once
// The files of a BIDS dataset's recordings: ROOT/sub-<label>/[ses-<label>/]<datatype>/ holds
// sub-<label>[_ses-<label>]_task-<label>[_acq-…][_run-…]_<datatype>.<ext> and their companions
// (_channels.tsv, _events.tsv, a BrainVision header's .eeg and .vmrk, sidecar .json). Companions
// higher in the tree are found by bids_inheritance.hpp.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "pipelines/bids/bids_names.hpp"

namespace pacflow::bids {

struct BidsFile {
  std::filesystem::path path;  // root / sub-01 / … / the file
  BidsName name;
};

struct BidsTree {
  std::vector<std::string> subjects;  // the labels of the sub-* folders, in natural order
  std::vector<BidsFile> files;        // the task's files of the datatype (every extension), by stem
  std::set<std::string> tasks;        // every task of the datatype seen, for messages
};

// Walks `root`. Throws InputError naming a file whose subject or session is not its folder's.
BidsTree scan_bids(const std::filesystem::path& root, const std::string& datatype, const std::string& task);

}  // namespace pacflow::bids
