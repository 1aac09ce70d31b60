#include "pipelines/bids/bids_filters.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/api/errors.hpp"

namespace pacflow::bids {

LabelFilter::LabelFilter(const std::optional<json>& given, std::string param, std::string entity)
    : param_(std::move(param)), entity_(std::move(entity)) {
  if (given) values_ = stages::parse_entity_labels(param_, *given, entity_);
  used_.assign(values_.size(), false);
}

bool LabelFilter::selects(const std::optional<std::string>& label) const {
  if (values_.empty()) return true;
  return label && std::any_of(values_.begin(), values_.end(), [&](const auto& v) { return v.matches(*label, entity_); });
}

bool LabelFilter::keeps(const std::optional<std::string>& label) {
  if (values_.empty()) return true;
  bool kept = false;
  for (std::size_t i = 0; label && i < values_.size(); ++i)
    if (values_[i].matches(*label, entity_)) used_[i] = kept = true;
  return kept;
}

void LabelFilter::check_all_used(const std::vector<std::string>& labels) const {
  std::vector<std::string> unused;
  for (std::size_t i = 0; i < values_.size(); ++i)
    if (!used_[i]) unused.push_back(values_[i].text);
  if (unused.empty()) return;
  const auto prefixed = [&](std::vector<std::string> names) {
    for (auto& n : names) n = entity_ + "-" + n;
    return fmt::format("{}", fmt::join(names, ", "));
  };
  throw ParamError(param_, fmt::format("no recording of the task has {}; its recordings have {}", prefixed(unused),
                                       labels.empty() ? "no " + entity_ + " entity" : prefixed(labels)));
}

}  // namespace pacflow::bids
