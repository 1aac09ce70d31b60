#pragma once
// A BIDS dataset's results as a BIDS derivative dataset (BIDS 1.10, "Derivatives"): the results
// folder gets a dataset_description.json (DatasetType "derivative", GeneratedBy pacflow, the raw
// dataset as SourceDatasets and as the DatasetLinks entry "raw"), and each recording's folder a
// sidecar <id>_pac.json whose Sources name the raw files it was computed from (bids:raw:… URIs),
// with the reader's and the stages' parameters. Both are made from the dataset's plan alone, so
// they have the same bytes whichever process, rank, shard or merge writes them.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "pipelines/manifest_table.hpp"

namespace pacflow::bids {

// The derivative's dataset_description.json for the BIDS dataset `table` (kind "bids") run through
// the stages of `plan` (the dataset's plan: pipelines/dataset_run.cpp).
std::string derivative_description(const ManifestTable& table, const nlohmann::json& plan);

// Recording `row`'s sidecar: its Sources (the recording file: a .vhdr names its .eeg and .vmrk; its
// events.tsv and channels.tsv where read), the reader and its parameters, the stages and theirs.
std::string recording_sidecar(const ManifestTable& table, const ManifestRecording& row, const nlohmann::json& plan);

// The sidecar's name in the recording's folder.
std::string sidecar_name(const ManifestRecording& row);

}  // namespace pacflow::bids
