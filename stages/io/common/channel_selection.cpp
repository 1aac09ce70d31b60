#include "stages/io/common/channel_selection.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>

#include "engine/api/errors.hpp"

namespace pacflow::stages {

namespace {

[[noreturn]] void bad(const std::string& message) { throw ParamError("channels", message); }

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  return first == std::string::npos ? "" : s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

bool parse_index(const std::string& text, std::size_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc{} && end == text.data() + text.size();
}

std::string known_labels(const std::vector<std::string>& labels) {
  constexpr std::size_t kShown = 24;
  std::vector<std::string> quoted;
  for (std::size_t i = 0; i < std::min(labels.size(), kShown); ++i) quoted.push_back(fmt::format("{}:\"{}\"", i, labels[i]));
  return fmt::format("{}{}", fmt::join(quoted, ", "), labels.size() > kShown ? ", …" : "");
}

// Appends the channels one item names.
void add_item(const std::string& raw, const std::vector<std::string>& labels, std::vector<std::size_t>& out) {
  const std::string item = trimmed(raw);
  if (item.empty()) bad("an empty item in the list (two commas in a row?)");
  if (const auto it = std::find(labels.begin(), labels.end(), item); it != labels.end()) {
    out.push_back(static_cast<std::size_t>(it - labels.begin()));
    return;
  }
  std::size_t first = 0, last = 0;
  const auto dash = item.find('-', 1);
  const bool index = parse_index(item, first);
  const bool range = !index && dash != std::string::npos && parse_index(item.substr(0, dash), first) &&
                     parse_index(item.substr(dash + 1), last);
  if (!index && !range) {
    const std::string hint = suggest(item, labels);
    bad(fmt::format("no channel labelled \"{}\"{}; the recording has {}", item, hint.empty() ? "" : " (" + hint + ")",
                    known_labels(labels)));
  }
  if (index) last = first;
  if (first > last) bad(fmt::format("range \"{}\" runs backwards", item));
  if (last >= labels.size())
    bad(fmt::format("channel index {} is out of range: the recording has {} channels (0-{})", last, labels.size(),
                    labels.size() - 1));
  for (std::size_t i = first; i <= last; ++i) out.push_back(i);
}

}  // namespace

ChannelSelection ChannelSelection::parse(const std::string& param, const nlohmann::json& spec) {
  const auto refuse = [&](const std::string& message) { throw ParamError(param, message); };
  ChannelSelection out;
  out.written_ = spec.dump();
  std::vector<std::string>& items = out.items_;
  if (spec.is_string()) {
    const std::string text = spec.get<std::string>();
    std::size_t start = 0;
    for (std::size_t comma; (comma = text.find(',', start)) != std::string::npos; start = comma + 1)
      items.push_back(text.substr(start, comma - start));
    items.push_back(text.substr(start));
  } else if (spec.is_number_integer() || spec.is_array()) {
    for (const auto& v : spec.is_array() ? spec : nlohmann::json::array({spec})) {
      if (v.is_string()) items.push_back(v.get<std::string>());
      else if (v.is_number_integer() && v.get<long long>() >= 0) items.push_back(std::to_string(v.get<long long>()));
      else refuse(fmt::format("{} is neither a label nor a channel index", v.dump()));
    }
    if (items.empty()) refuse("the list is empty; leave channels out to read every channel");
  } else {
    refuse(fmt::format("expected labels or indices such as Fz,Cz or 0-15, got {}", spec.dump()));
  }
  return out;
}

std::vector<std::size_t> ChannelSelection::select(const std::vector<std::string>& labels) const {
  std::vector<std::size_t> selected;
  for (const auto& item : items_) add_item(item, labels, selected);
  for (std::size_t i = 0; i < selected.size(); ++i)
    if (std::find(selected.begin(), selected.begin() + static_cast<std::ptrdiff_t>(i), selected[i]) !=
        selected.begin() + static_cast<std::ptrdiff_t>(i))
      bad(fmt::format("channel {} (\"{}\") is selected twice", selected[i], labels[selected[i]]));
  return selected;
}

std::vector<std::size_t> select_channels(const nlohmann::json& spec, const std::vector<std::string>& labels) {
  return ChannelSelection::parse("channels", spec).select(labels);
}

}  // namespace pacflow::stages
