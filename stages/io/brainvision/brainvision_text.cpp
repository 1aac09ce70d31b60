#include "stages/io/brainvision/brainvision_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "engine/api/errors.hpp"

namespace pacflow::stages {

namespace {

// Lines split at '\n', each without a trailing '\r'.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

std::string latin1_to_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x80) {
      out += c;
    } else {
      out += static_cast<char>(0xC0 | (b >> 6));
      out += static_cast<char>(0x80 | (b & 0x3F));
    }
  }
  return out;
}

bool is_section(std::string_view line) { return line.size() >= 2 && line.front() == '[' && line.back() == ']'; }

}  // namespace

std::string shown_text(std::string_view text) {
  constexpr std::size_t kShown = 60;
  std::size_t end = std::min(text.size(), kShown);
  while (end < text.size() && end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  std::string out = "\"";
  for (const char c : text.substr(0, end)) {
    const auto b = static_cast<unsigned char>(c);
    out += b < 0x20 || b == 0x7F ? fmt::format("\\x{:02X}", b) : std::string(1, c);
  }
  return out + (end < text.size() ? "…\"" : "\"");
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string> comma_fields(std::string_view value) {
  std::vector<std::string> fields(1);
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i] == ',') {
      fields.emplace_back();
    } else if (value[i] == '\\' && i + 1 < value.size() && value[i + 1] == '1') {  // "\1" stands for a comma
      fields.back() += ',';
      ++i;
    } else {
      fields.back() += value[i];
    }
  }
  return fields;
}

bool same_word(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
           return lower(x) == lower(y);
         });
}

std::optional<std::int64_t> whole_number(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> real_number(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

bool IniText::latin1(std::string_view bytes) const {
  bool latin1 = !valid_utf8(bytes);
  // Looked for before decoding: its line is ASCII in either codepage.
  for (const auto raw : split_lines(bytes)) {
    const std::string_view line = trimmed(raw);
    if (is_section(line) && same_word(trimmed(line.substr(1, line.size() - 2)), "Comment")) break;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos || !same_word(trimmed(line.substr(0, eq)), "Codepage")) continue;
    const std::string_view value = trimmed(line.substr(eq + 1));
    if (same_word(value, "ANSI")) {
      latin1 = true;
    } else if (!same_word(value, "UTF-8")) {
      const auto at = static_cast<int>(std::count(bytes.data(), raw.data(), '\n')) + 1;
      fail(at, fmt::format("Codepage={} is neither UTF-8 nor ANSI", shown_text(value)));
    }
  }
  return latin1;
}

IniText::IniText(std::string_view bytes, std::string path) : path_(std::move(path)) {
  if (bytes.starts_with("\xEF\xBB\xBF")) bytes.remove_prefix(3);  // a UTF-8 byte-order mark
  const std::string text = latin1(bytes) ? latin1_to_utf8(bytes) : std::string(bytes);
  const auto lines = split_lines(text);
  first_line_ = lines.empty() ? "" : std::string(trimmed(lines[0]));
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const int number = static_cast<int>(i) + 1;
    const std::string_view line = trimmed(lines[i]);
    if (line.empty() || line.front() == ';') continue;
    if (is_section(line)) {
      const std::string name(trimmed(line.substr(1, line.size() - 2)));
      if (same_word(name, "Comment")) break;  // free text up to the end
      if (const IniSection* earlier = section(name))
        fail(number, fmt::format("a second [{}] section (the first is at line {})", name, earlier->line));
      sections_.push_back({name, number, {}, {}});
      continue;
    }
    if (sections_.empty()) continue;  // text before the first section is no part of the format
    const auto eq = line.find('=');
    const std::string key(eq == std::string_view::npos ? "" : trimmed(line.substr(0, eq)));
    if (key.empty())
      sections_.back().other_lines.push_back({"", std::string(line), number});
    else
      sections_.back().entries.push_back({key, std::string(trimmed(line.substr(eq + 1))), number});
  }
}

const IniSection* IniText::section(std::string_view name) const {
  for (const auto& s : sections_)
    if (same_word(s.name, name)) return &s;
  return nullptr;
}

const IniSection& IniText::require_section(std::string_view name, std::string_view what) const {
  const IniSection* s = section(name);
  if (!s) fail(0, fmt::format("no [{}] section ({})", name, what));
  return *s;
}

const IniEntry* IniText::find(const IniSection& section, std::string_view key) const {
  const IniEntry* found = nullptr;
  for (const auto& e : section.entries) {
    if (!same_word(e.key, key)) continue;
    if (found) fail(e.line, fmt::format("{}= is given twice in [{}] (first at line {})", e.key, section.name, found->line));
    found = &e;
  }
  return found;
}

const IniEntry& IniText::require(const IniSection& section, std::string_view key, std::string_view what) const {
  const IniEntry* e = find(section, key);
  if (!e) fail(section.line, fmt::format("[{}] has no {}= ({})", section.name, key, what));
  return *e;
}

void IniText::require_entries_only(const IniSection& section, std::string_view expected) const {
  if (section.other_lines.empty()) return;
  const IniEntry& bad = section.other_lines.front();
  fail(bad.line, fmt::format("expected {} in [{}], got {}", expected, section.name, shown_text(bad.value)));
}

void IniText::fail(int line, const std::string& what) const {
  throw InputError(line > 0 ? fmt::format("{}:{}: {}", path_, line, what) : fmt::format("{}: {}", path_, what));
}

}  // namespace pacflow::stages
