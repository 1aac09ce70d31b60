#pragma once
// A report's or a plan's warnings, one `warning:` line each on stderr.
#include <cstdio>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "engine/api/params.hpp"

namespace pacflow::cli {

inline void print_warnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) fmt::print(stderr, "warning: {}\n", w);
}

inline void print_warnings(const json& report) {
  print_warnings(report.value("warnings", json::array()).get<std::vector<std::string>>());
}

}  // namespace pacflow::cli
