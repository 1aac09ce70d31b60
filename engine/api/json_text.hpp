#pragma once
// JSON as text that never fails on strings that are not UTF-8, and JSON records read back safely.
// A file name or an EDF channel label may hold Latin-1 bytes; nlohmann::json's dump() throws on
// those, which would fail a finished run while it writes result.json. Here such bytes become U+FFFD.
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pacflow {

inline std::string json_text(const nlohmann::json& value, int indent = -1) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

// `text` with every byte sequence that is not UTF-8 replaced by U+FFFD, as json_text writes it: for
// what must be UTF-8 (a figure's label drawn by cairo, an HTML page).
inline std::string utf8_text(std::string_view text) {
  return nlohmann::json::parse(json_text(nlohmann::json(std::string(text)))).get<std::string>();
}

// The deepest nesting accepted in a JSON record the engine reads back (a checkpoint record, a commit
// journal): its own records nest a few levels; a damaged or hostile one nested thousands deep would
// otherwise exhaust the stack when compared or written.
inline constexpr int kMaxJsonDepth = 64;

// Parses a JSON record. Throws nlohmann::json::exception when it is not JSON, std::invalid_argument
// when it nests deeper than kMaxJsonDepth (refused while parsing, before any deep value is built).
inline nlohmann::json parse_json_record(std::string_view text) {
  return nlohmann::json::parse(text, [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > kMaxJsonDepth)
      throw std::invalid_argument("nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    return true;
  });
}

}  // namespace pacflow
