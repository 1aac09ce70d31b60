#include "pipelines/dataset_table.hpp"

#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "pipelines/bids/bids_dataset.hpp"

namespace pacflow {

namespace {

std::optional<std::string> manifest_text_param(const ElementSpec& source, const char* key) {
  const auto it = source.params.find(key);
  if (it == source.params.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) throw InputError(fmt::format("{}: {}= takes a name or a path", source.name, key), source.where);
  return it->get<std::string>();
}

}  // namespace

bool is_dataset_source(const std::string& name) { return name == "manifest" || name == "bids"; }

ManifestTable read_dataset_table(const ElementSpec& source, const Registry& registry) {
  if (source.name == "bids") return bids::read_bids(source, registry);
  const std::optional<std::string> path = manifest_text_param(source, "path");
  if (!path) throw InputError("manifest: path= names the dataset's table", source.where);
  return read_manifest(*path, manifest_text_param(source, "reader"), registry);
}

const char* table_param(const ManifestTable& table) { return table.kind == "bids" ? "root" : "path"; }

}  // namespace pacflow
