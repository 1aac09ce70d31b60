#include "engine/devices/sim/sim_model_file.hpp"

#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/api/errors.hpp"

namespace pacflow {

namespace {

double positive(const nlohmann::json& value, const std::string& where, bool zero_allowed = false) {
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0 ||
      (value.get<double>() == 0 && !zero_allowed))
    throw InputError(fmt::format("{}: expected a {} number, got {}", where, zero_allowed ? "non-negative" : "positive",
                                 value.dump()));
  return value.get<double>();
}

}  // namespace

SimModel read_sim_model(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw MissingFileError(file.string(), fmt::format("{}: cannot read the modelled device", file.string()));
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json model;
  try {
    model = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not JSON ({})", file.string(), e.what()));
  }
  if (!model.is_object()) throw InputError(fmt::format("{}: expected a JSON object of the model's figures", file.string()));
  SimModel out;
  out.name = file.filename().string();
  const std::pair<const char*, double SimModel::*> figures[] = {
      {"flops_per_s", &SimModel::flops_per_s},
      {"memory_bytes_per_s", &SimModel::memory_bytes_per_s},
      {"host_to_device_bytes_per_s", &SimModel::host_to_device_bytes_per_s},
      {"device_to_host_bytes_per_s", &SimModel::device_to_host_bytes_per_s},
      {"peer_bytes_per_s", &SimModel::peer_bytes_per_s},
      {"launch_s", &SimModel::launch_s}};
  for (const auto& [key, value] : model.items()) {
    const std::string where = fmt::format("{}: {}", file.string(), key);
    bool known = false;
    for (const auto& [name, field] : figures)
      if (key == name) {
        out.*field = positive(value, where, field == &SimModel::launch_s);
        known = true;
      }
    if (key == "name" && value.is_string()) {
      out.name = value.get<std::string>();
    } else if (key == "stage_flops_per_s") {
      if (!value.is_object()) throw InputError(fmt::format("{}: expected {{\"stage\": rate, …}}", where));
      for (const auto& [stage, rate] : value.items()) out.stage_flops_per_s[stage] = positive(rate, where + "." + stage);
    } else if (!known && !value.is_string()) {
      throw InputError(fmt::format("{}: not a figure of the model (flops_per_s, memory_bytes_per_s, "
                                   "host_to_device_bytes_per_s, device_to_host_bytes_per_s, peer_bytes_per_s, "
                                   "launch_s, stage_flops_per_s) nor a note (a string)",
                                   where));
    }
  }
  return out;
}

}  // namespace pacflow
