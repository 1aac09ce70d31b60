#pragma once
// subjects=, sessions=, runs= of the bids source: the entity labels a dataset keeps, read when the
// element is made (so `validate` refuses a malformed one) and matched by pipelines/bids against
// the labels in the dataset's file names.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pacflow::stages {

struct EntityLabel {
  std::string text;                    // as written, for messages: "01", "sub-01", "1"
  std::optional<std::int64_t> number;  // a bare whole number: matches a label of digits of that value
  // Whether `label` (of entity `entity`: "sub") is this one: 1 matches "01", "sub-01" matches "01".
  bool matches(const std::string& label, const std::string& entity) const;
};

// A label or a number, or a list of them. Throws ParamError(param) for an empty list or a value
// that is neither, in `entity`'s words ("expected a sub label …").
std::vector<EntityLabel> parse_entity_labels(const std::string& param, const nlohmann::json& value,
                                             const std::string& entity);

}  // namespace pacflow::stages
