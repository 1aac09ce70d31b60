#include "pipelines/bids/bids_names.hpp"

#include <algorithm>
#include <cctype>

namespace pacflow::bids {

namespace {

bool is_label(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c); });
}

std::vector<std::string> split(std::string_view s, char by) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t at = s.find(by); at != std::string_view::npos; at = s.find(by, start)) {
    parts.emplace_back(s.substr(start, at - start));
    start = at + 1;
  }
  parts.emplace_back(s.substr(start));
  return parts;
}

}  // namespace

std::optional<std::string> BidsName::entity(std::string_view key) const {
  for (const auto& [k, label] : entities)
    if (k == key) return label;
  return std::nullopt;
}

std::optional<BidsName> parse_entity_name(const std::string& filename) {
  const std::size_t dot = filename.find('.');
  const std::string base = filename.substr(0, dot);
  BidsName name;
  if (dot != std::string::npos) name.extension = filename.substr(dot);
  std::transform(name.extension.begin(), name.extension.end(), name.extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::vector<std::string> parts = split(base, '_');
  if (parts.empty() || !is_label(parts.back())) return std::nullopt;
  name.suffix = parts.back();
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::size_t dash = parts[i].find('-');
    if (dash == std::string::npos) return std::nullopt;
    const std::string key = parts[i].substr(0, dash), label = parts[i].substr(dash + 1);
    if (!is_label(key) || !is_label(label)) return std::nullopt;
    name.entities.emplace_back(key, label);
  }
  name.stem = base.size() > name.suffix.size() ? base.substr(0, base.size() - name.suffix.size() - 1) : "";
  return name;
}

std::optional<BidsName> parse_bids_name(const std::string& filename) {
  std::optional<BidsName> name = parse_entity_name(filename);
  if (!name || name->entities.empty() || name->entities.front().first != "sub") return std::nullopt;
  return name;
}

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && digit(a[ei])) ++ei;
      while (ej < b.size() && digit(b[ej])) ++ej;
      std::string_view x = a.substr(i, ei - i), y = b.substr(j, ej - j);
      x.remove_prefix(std::min(x.find_first_not_of('0'), x.size()));
      y.remove_prefix(std::min(y.find_first_not_of('0'), y.size()));
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = ei, j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  return a.size() - i < b.size() - j || (a.size() - i == b.size() - j && a < b);
}

}  // namespace pacflow::bids
