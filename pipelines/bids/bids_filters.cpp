#include "pipelines/bids/bids_filters.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/api/errors.hpp"

namespace pacflow::bids {

LabelFilter::LabelFilter(const std::optional<json>& given, std::string param, std::string entity)
    : param_(std::move(param)), entity_(std::move(entity)) {
  if (!given) return;
  const auto add = [&](const json& v) {
    if (!(v.is_string() && !v.get<std::string>().empty()) && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
      throw ParamError(param_, fmt::format("expected a {0} label or a list of them ([01, 02] or [{0}-01]); got {1}",
                                           entity_, v.dump()));
    values_.push_back(v);
  };
  if (given->is_array()) {
    if (given->empty()) throw ParamError(param_, "the list is empty");
    for (const json& v : *given) add(v);
  } else {
    add(*given);
  }
  used_.assign(values_.size(), false);
}

bool LabelFilter::matches(const json& value, const std::string& label) const {
  if (value.is_number_integer()) {
    const bool digits =
        !label.empty() && std::all_of(label.begin(), label.end(), [](unsigned char c) { return std::isdigit(c); });
    return digits && label.size() < 19 && std::stoll(label) == value.get<std::int64_t>();
  }
  std::string text = value.get<std::string>();
  if (text.starts_with(entity_ + "-")) text.erase(0, entity_.size() + 1);
  return text == label;
}

bool LabelFilter::selects(const std::optional<std::string>& label) const {
  if (values_.empty()) return true;
  return label && std::any_of(values_.begin(), values_.end(), [&](const json& v) { return matches(v, *label); });
}

bool LabelFilter::keeps(const std::optional<std::string>& label) {
  if (values_.empty()) return true;
  bool kept = false;
  for (std::size_t i = 0; label && i < values_.size(); ++i)
    if (matches(values_[i], *label)) used_[i] = kept = true;
  return kept;
}

void LabelFilter::check_all_used(const std::vector<std::string>& labels) const {
  std::vector<std::string> unused;
  for (std::size_t i = 0; i < values_.size(); ++i)
    if (!used_[i]) unused.push_back(values_[i].is_string() ? values_[i].get<std::string>() : values_[i].dump());
  if (unused.empty()) return;
  const auto prefixed = [&](std::vector<std::string> names) {
    for (auto& n : names) n = entity_ + "-" + n;
    return fmt::format("{}", fmt::join(names, ", "));
  };
  throw ParamError(param_, fmt::format("no recording of the task has {}; its recordings have {}", prefixed(unused),
                                       labels.empty() ? "no " + entity_ + " entity" : prefixed(labels)));
}

}  // namespace pacflow::bids
