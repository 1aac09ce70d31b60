#include "stages/io/common/epochs.hpp"

#include <fmt/format.h>

#include "engine/api/errors.hpp"

namespace pacflow::stages {

Epochs fixed_windows(std::int64_t total, std::int64_t length, std::int64_t step) {
  Epochs epochs{{}, length, {}};
  for (std::int64_t start = 0; start + length <= total; start += step) epochs.starts.push_back(start);
  return epochs;
}

namespace {
SignedDuration parse_signed(const std::string& param, std::string text) {
  SignedDuration d;
  const auto first = text.find_first_not_of(' ');
  text = first == std::string::npos ? "" : text.substr(first);
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    d.negative = text.front() == '-';
    text.erase(0, 1);
  }
  if (text.empty() || text.front() == '-' || text.front() == '+') throw ParamError(param, "missing duration");
  d.magnitude = parse_duration(param, text);
  return d;
}
}  // namespace

EventWindow parse_event_window(const std::string& param, const nlohmann::json& value) {
  const auto fail = [&](const std::string& hint) {
    throw ParamError(param, fmt::format("expected START:END around each event, each with its unit, such as -1s:3s, "
                                        "-500ms:1.5s or -128smp:384smp (samples), got {}{}",
                                        value.dump(), hint));
  };
  if (!value.is_string()) fail("");
  const std::string text = value.get<std::string>();
  const auto colon = text.find(':');
  if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos) fail("");
  const std::string start = text.substr(0, colon), end = text.substr(colon + 1);
  try {
    return {parse_signed(param, start), parse_signed(param, end)};
  } catch (const ParamError&) {
    // Bare numbers (a window of -1:3 is 4 samples, not 4 seconds): suggest the seconds.
    const auto number = [](const std::string& t) { return !t.empty() && t.find_first_not_of("+-.0123456789 ") == std::string::npos; };
    fail(number(start) && number(end) ? fmt::format(": the numbers have no unit ({}s:{}s?)", start, end) : "");
  }
  return {};
}

Epochs event_windows(const std::vector<std::int64_t>& onsets, std::int64_t start, std::int64_t end,
                     std::int64_t total, std::vector<std::size_t>& skipped) {
  Epochs epochs{{}, end - start, {}};
  for (std::size_t i = 0; i < onsets.size(); ++i) {
    const std::int64_t first = onsets[i] + start;
    if (first < 0 || first + epochs.length > total) skipped.push_back(i);
    else epochs.starts.push_back(first);
  }
  return epochs;
}

}  // namespace pacflow::stages
