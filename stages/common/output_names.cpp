#include "stages/common/output_names.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/api/errors.hpp"

namespace pacflow::stages {

std::vector<std::string> output_names(const json& spec, const std::vector<std::string>& valid) {
  std::vector<std::string> names;
  const auto add = [&](const std::string& word) {
    if (std::find(valid.begin(), valid.end(), word) == valid.end())
      throw ParamError("outputs", fmt::format("unknown output \"{}\"; valid: {}", word, fmt::join(valid, ", ")));
    names.push_back(word);
  };
  if (spec.is_string()) {
    const std::string text = spec.get<std::string>();
    for (std::size_t start = 0; start <= text.size();) {
      const std::size_t comma = std::min(text.find(',', start), text.size());
      add(text.substr(start, comma - start));
      start = comma + 1;
    }
  } else if (spec.is_array()) {
    for (const auto& word : spec) {
      if (!word.is_string()) throw ParamError("outputs", fmt::format("{} is not an output name", word.dump()));
      add(word.get<std::string>());
    }
  } else {
    throw ParamError("outputs", fmt::format("expected names such as {}", fmt::join(valid, ",")));
  }
  return names;
}

bool asks_for(const std::vector<std::string>& outputs, const std::string& word) {
  return std::find(outputs.begin(), outputs.end(), word) != outputs.end();
}

}  // namespace pacflow::stages
