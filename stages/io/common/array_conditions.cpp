#include "stages/io/common/array_conditions.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/api/errors.hpp"

namespace pacflow::stages {

namespace {

// A label as text: names and whole numbers (MNE's event codes) alike.
std::string label_text(const json& value, const std::string& param, std::size_t index) {
  if (value.is_string() && !value.get<std::string>().empty()) return value.get<std::string>();
  if (value.is_number_integer()) return std::to_string(value.get<std::int64_t>());
  throw ParamError(param, fmt::format("item {} is {}: give names or whole numbers", index, value.dump()));
}

}  // namespace

std::vector<std::string> parse_condition_labels(const std::string& param, const json& list) {
  if (!list.is_array()) throw ParamError(param, "give a list, e.g. [go, nogo, go]");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < list.size(); ++i) out.push_back(label_text(list[i], param, i));
  return out;
}

std::vector<std::string> parse_condition_names(const std::string& param, const json& list) {
  std::vector<std::string> order = parse_condition_labels(param, list);
  for (std::size_t i = 0; i < order.size(); ++i)
    if (std::find(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(i), order[i]) !=
        order.begin() + static_cast<std::ptrdiff_t>(i))
      throw ParamError(param, fmt::format("\"{}\" is named twice", order[i]));
  return order;
}

void describe_array_conditions(const ConditionLabels& labels, const ConditionLabels& names, StreamInfo& info) {
  if (!labels) {
    if (names) throw ParamError("condition_names", "give conditions= too: each epoch's condition");
    return;
  }
  if (info.leading_names.empty() || info.leading_names[0] != "epochs")
    throw ParamError("conditions", "the array has no epochs axis (layout= with E) whose epochs could have conditions");
  const std::vector<std::string>& per_epoch = *labels;
  const auto epochs = static_cast<std::size_t>(info.leading_dims[0]);
  if (per_epoch.size() != epochs)
    throw ParamError("conditions", fmt::format("{} labels for {} epochs: give one per epoch", per_epoch.size(), epochs));
  std::vector<std::string> order;
  if (names) {
    order = *names;
  } else {
    for (const auto& l : per_epoch)
      if (std::find(order.begin(), order.end(), l) == order.end()) order.push_back(l);
  }
  std::vector<std::int64_t> condition(epochs);
  for (std::size_t e = 0; e < epochs; ++e) {
    const auto it = std::find(order.begin(), order.end(), per_epoch[e]);
    if (it == order.end())
      throw ParamError("conditions", fmt::format("epoch {}'s condition \"{}\" is not among condition_names ({})", e,
                                                 per_epoch[e], fmt::join(order, ", ")));
    condition[e] = it - order.begin();
  }
  json described = json::array();
  for (std::size_t c = 0; c < order.size(); ++c) {
    const auto count = std::count(condition.begin(), condition.end(), static_cast<std::int64_t>(c));
    if (count == 0)
      throw ParamError("condition_names", fmt::format("no epoch is in condition \"{}\"", order[c]));
    const auto first = std::find(condition.begin(), condition.end(), static_cast<std::int64_t>(c)) - condition.begin();
    described.push_back({{"name", order[c]}, {"epochs", count}, {"first_epoch", first}});
  }
  info.description["conditions"] = described;
  if (order.size() < 2) return;  // one condition: every epoch in it, as without labels
  info.condition_names = order;
  info.epoch_conditions = condition;
}

}  // namespace pacflow::stages
