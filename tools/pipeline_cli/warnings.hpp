#pragma once
// A report's or a plan's warnings, one `warning:` line each on stderr.
#include <cstdio>
#include <fmt/format.h>
#include <string>
#include <vector>

namespace pacflow::cli {

inline void print_warnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) fmt::print(stderr, "warning: {}\n", w);
}

}  // namespace pacflow::cli
