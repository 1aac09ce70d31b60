#pragma once
// A dataset's table (the manifest source's path=): tab-separated text, one recording per row.
//
//   # subjects.tsv: comments and blank lines are skipped
//   id       path            fs    events
//   sub-01   sub-01.npy      512
//   sub-02   raw/sub-02.edf        [go, nogo]
//
// The header names the columns: `id` (the recording's name: letters, digits, '.', '_', '-'; its
// results' folder), `path` (its file, relative to the table's folder), optionally `reader` (the
// source that reads it), and any parameter of that source. A cell holds a value as a .pipe file
// writes one (512, 1.5, true, [go, nogo], 2:20:10, text); an empty cell leaves the parameter to the
// source's default. The reader is the row's `reader`, else the manifest's reader=, else the file's
// extension's (.npy/.npz npy, .edf/.bdf edf, .vhdr brainvision, .h5/.hdf5 hdf5).
//
// A BIDS dataset (the bids source, pipelines/bids/bids_dataset.hpp) is read into the same table:
// one recording per file found, its file named where a row's line would be (origin_of).
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/api/params.hpp"
#include "engine/api/registry.hpp"

namespace pacflow {

struct ManifestRecording {
  std::string id;
  std::string reader;  // the source element reading it
  json params;         // the reader's parameters: path= (as the working directory sees it) and the row's
  int line = 0;        // in the table; 0 when the recording is no table's row (a file of a BIDS tree)
  // Other files its row was made from: a BIDS recording's _events.tsv, _channels.tsv and _eeg.json.
  std::vector<std::filesystem::path> companions;
  // What the dataset says of the recording beside its parameters: a BIDS recording's merged
  // _eeg.json (pipelines/bids/bids_sidecar.hpp); empty for a table's row.
  json metadata = json::object();
};

struct ManifestTable {
  std::filesystem::path file;  // the table (a BIDS dataset: its root folder)
  std::vector<ManifestRecording> recordings;
  std::string kind = "manifest";      // the dataset's source: manifest or bids
  std::vector<std::string> warnings;  // about the dataset as read (a BIDS subject not listed, …)
};

// Reads and checks `file` (InputError naming the file, line and column of what is wrong: a missing
// id or path column, a repeated id, a cell that is not a value, a column that is not a parameter of
// the row's reader). `reader` is the manifest's reader= (empty: by extension).
ManifestTable read_manifest(const std::filesystem::path& file, const std::optional<std::string>& reader,
                            const Registry& registry);

// Where a recording comes from, for messages: its table's line ("subjects.tsv:3"), or its file (a
// recording that is no table's row).
std::string origin_of(const ManifestTable& table, const ManifestRecording& row);

}  // namespace pacflow
