#pragma once
// A report's or a plan's warnings, one `warning:` line each on stderr.
#include <cstdio>
#include <fmt/format.h>

#include "engine/api/params.hpp"

namespace pacflow::cli {

inline void print_warnings(const json& report) {
  for (const auto& w : report.value("warnings", json::array())) fmt::print(stderr, "warning: {}\n", w.get<std::string>());
}

}  // namespace pacflow::cli
