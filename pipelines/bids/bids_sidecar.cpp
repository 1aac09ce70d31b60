#include "pipelines/bids/bids_sidecar.hpp"

#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "engine/api/errors.hpp"
#include "pipelines/bids/bids_inheritance.hpp"

namespace pacflow::bids {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json read_object(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot be read", file.string()));
  std::stringstream text;
  text << in.rdbuf();
  json parsed;
  try {
    parsed = json::parse(text.str());
  } catch (const json::parse_error& e) {
    throw InputError(fmt::format("{}: not JSON (byte {}): a BIDS sidecar is one JSON object", file.string(), e.byte));
  }
  if (!parsed.is_object())
    throw InputError(fmt::format("{}: a BIDS sidecar is one JSON object, not {}", file.string(), parsed.type_name()));
  return parsed;
}

void check_rate(const json& metadata, const char* key, const fs::path& file) {
  if (!metadata.contains(key)) return;
  const json& value = metadata[key];
  if (value.is_string() && value.get<std::string>() == "n/a" && std::string(key) == "PowerLineFrequency") return;
  if (!value.is_number() || !(value.get<double>() > 0))
    throw InputError(fmt::format("{}: {} is {}, not a frequency in Hz", file.string(), key, value.dump()));
}

}  // namespace

RecordingSidecar read_recording_sidecar(const fs::path& root, const fs::path& recording, const BidsName& name,
                                        const std::string& datatype) {
  RecordingSidecar sidecar;
  sidecar.files = applicable_files(root, recording, name, datatype, ".json");
  for (const fs::path& file : sidecar.files) {
    const json level = read_object(file);
    for (const auto& [key, value] : level.items()) sidecar.metadata[key] = value;
    check_rate(level, "SamplingFrequency", file);
    check_rate(level, "PowerLineFrequency", file);
  }
  return sidecar;
}

std::optional<std::string> sampling_frequency_warning(const std::string& id, const json& metadata,
                                                      double file_rate_hz) {
  const auto it = metadata.find("SamplingFrequency");
  if (it == metadata.end() || !it->is_number()) return std::nullopt;
  const double said = it->get<double>();
  if (std::abs(said - file_rate_hz) <= 1e-6 * std::max(said, file_rate_hz)) return std::nullopt;
  return fmt::format("recording {}: its sidecar's SamplingFrequency is {:g} Hz, but the file is read at {:g} Hz; "
                     "the file's rate is used",
                     id, said, file_rate_hz);
}

}  // namespace pacflow::bids
