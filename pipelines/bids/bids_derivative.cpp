#include "pipelines/bids/bids_derivative.hpp"

#include <fmt/format.h>
#include <fstream>

#include "engine/api/pipeline.hpp"

namespace pacflow::bids {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// BIDS 1.10 is the first version with DatasetLinks and BIDS URIs in Sources.
constexpr const char* kBidsVersion = "1.10.0";
constexpr const char* kRawLink = "raw";

fs::path absolute_root(const ManifestTable& table) { return fs::absolute(table.file).lexically_normal(); }

json generated_by() {
  return json::array({{{"Name", "pacflow"},
                       {"Version", engine_version()},
                       {"Description", "phase-amplitude coupling (band-pass filter, analytic signal, coupling measure, "
                                       "surrogate statistics); each recording's result.json has its provenance"}}});
}

// The raw dataset's own dataset_description.json, or an empty object when it has none or it cannot
// be read (the bids source warned already).
json raw_description(const ManifestTable& table) {
  std::ifstream in(absolute_root(table) / "dataset_description.json");
  if (!in) return json::object();
  json description = json::parse(in, nullptr, /*allow_exceptions=*/false);
  return description.is_object() ? description : json::object();
}

// `file` as a BIDS URI into the raw dataset ("bids:raw:sub-01/eeg/sub-01_task-x_eeg.edf").
std::string raw_uri(const ManifestTable& table, const fs::path& file) {
  const fs::path relative = fs::absolute(file).lexically_normal().lexically_relative(absolute_root(table));
  return fmt::format("bids:{}:{}", kRawLink, relative.generic_string());
}

// The dataset's stages with their parameters, in order, as the plan has them.
json stages_of(const json& plan) {
  json stages = json::array();
  for (const json& e : plan.at("pipeline"))
    if (e.at("kind") == "stage") stages.push_back({{"Name", e.at("name")}, {"Parameters", e.at("params")}});
  return stages;
}

}  // namespace

std::string derivative_description(const ManifestTable& table, const json& plan) {
  const json raw = raw_description(table);
  const std::string raw_name = raw.contains("Name") && raw["Name"].is_string() ? raw["Name"].get<std::string>()
                                                                               : absolute_root(table).filename().string();
  json source{{"URL", "file://" + absolute_root(table).generic_string()}};
  if (raw.contains("DatasetDOI") && raw["DatasetDOI"].is_string()) source["DOI"] = raw["DatasetDOI"];
  json description{{"Name", fmt::format("Phase-amplitude coupling of {}", raw_name)},
                   {"BIDSVersion", kBidsVersion},
                   {"DatasetType", "derivative"},
                   {"GeneratedBy", generated_by()},
                   {"SourceDatasets", json::array({source})},
                   {"DatasetLinks", {{kRawLink, source["URL"]}}},
                   {"PipelineDescription", {{"Stages", stages_of(plan)}}}};
  return description.dump(2) + "\n";
}

std::string sidecar_name(const ManifestRecording& row) { return row.id + "_pac.json"; }

std::string recording_sidecar(const ManifestTable& table, const ManifestRecording& row, const json& plan) {
  const fs::path recording = row.params.at("path").get<std::string>();
  json sources = json::array({raw_uri(table, recording)});
  for (const fs::path& companion : row.companions) sources.push_back(raw_uri(table, companion));
  json reader_params = row.params;
  reader_params.erase("path");
  reader_params.erase("events_file");
  json sidecar{{"Description", fmt::format("Phase-amplitude coupling of recording {}: the arrays of this folder, "
                                           "described with their axes in result.json",
                                           row.id)},
               {"Sources", sources},
               {"GeneratedBy", generated_by()},
               {"Reader", {{"Name", row.reader}, {"Parameters", reader_params}}},
               {"Stages", stages_of(plan)}};
  // The raw recording's own sidecar (_eeg.json, merged as BIDS inherits it): its rate, line frequency
  // and reference travel with the results.
  if (!row.metadata.empty()) sidecar["SourceMetadata"] = row.metadata;
  return sidecar.dump(2) + "\n";
}

}  // namespace pacflow::bids
