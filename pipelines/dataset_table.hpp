#pragma once
// The sources that make a pipeline a dataset, and the table of recordings each gives: the one place
// that knows them. `manifest` (a table of recordings, pipelines/manifest_table.hpp) and `bids` (a
// BIDS dataset's folder, pipelines/bids/bids_dataset.hpp).
#include <string>

#include "engine/api/pipeline.hpp"
#include "engine/api/registry.hpp"
#include "pipelines/manifest_table.hpp"

namespace pacflow {

// Whether a source of this name makes the pipeline a dataset.
bool is_dataset_source(const std::string& name);

// The recordings of a dataset source (`source`: the pipeline's first element, a dataset source).
// Throws InputError as the table's reader does.
ManifestTable read_dataset_table(const ElementSpec& source, const Registry& registry);

// The source's parameter naming ManifestTable::file: the manifest's path=, bids' root=.
const char* table_param(const ManifestTable& table);

}  // namespace pacflow
