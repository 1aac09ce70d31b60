#include "stages/io/bids/bids_labels.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "engine/api/errors.hpp"

namespace pacflow::stages {

bool EntityLabel::matches(const std::string& label, const std::string& entity) const {
  if (number) {
    const bool digits =
        !label.empty() && std::all_of(label.begin(), label.end(), [](unsigned char c) { return std::isdigit(c); });
    return digits && label.size() < 19 && std::stoll(label) == *number;
  }
  return (text.starts_with(entity + "-") ? text.substr(entity.size() + 1) : text) == label;
}

std::vector<EntityLabel> parse_entity_labels(const std::string& param, const nlohmann::json& value,
                                             const std::string& entity) {
  std::vector<EntityLabel> labels;
  const auto add = [&](const nlohmann::json& v) {
    if (v.is_string() && !v.get<std::string>().empty()) {
      labels.push_back({v.get<std::string>(), std::nullopt});
    } else if (v.is_number_integer() && v.get<std::int64_t>() >= 0) {
      labels.push_back({v.dump(), v.get<std::int64_t>()});
    } else {
      throw ParamError(param, fmt::format("expected a {0} label or a list of them ([01, 02] or [{0}-01]); got {1}",
                                          entity, v.dump()));
    }
  };
  if (value.is_array()) {
    if (value.empty()) throw ParamError(param, "the list is empty");
    for (const auto& v : value) add(v);
  } else {
    add(value);
  }
  return labels;
}

}  // namespace pacflow::stages
