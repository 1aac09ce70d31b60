#pragma once
// JSON as text that never fails on strings that are not UTF-8. A file name or an EDF channel label
// may hold Latin-1 bytes; nlohmann::json's dump() throws on those, which would fail a finished run
// while it writes result.json. Here such bytes become U+FFFD.
#include <string>

#include <nlohmann/json.hpp>

namespace pacflow {

inline std::string json_text(const nlohmann::json& value, int indent = -1) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace pacflow
