#include "engine/api/estimates.hpp"

#include <fmt/format.h>
#include <numeric>

namespace pacflow {

double MemoryEstimate::total() const {
  return std::accumulate(terms.begin(), terms.end(), 0.0, [](double sum, const Term& t) { return sum + t.bytes; });
}

json MemoryEstimate::to_json() const {
  json out = {{"bytes", total()}, {"terms", json::array()}};
  for (const auto& t : terms) out["terms"].push_back({{"what", t.what}, {"bytes", t.bytes}});
  return out;
}

std::string MemoryEstimate::text() const {
  std::vector<std::string> parts;
  for (const auto& t : terms) parts.push_back(fmt::format("{} ({})", bytes_text(t.bytes), t.what));
  return fmt::format("{} = {}", bytes_text(total()), fmt::join(parts, " + "));
}

double RunTimeEstimate::total() const {
  return std::accumulate(terms.begin(), terms.end(), 0.0, [](double sum, const Term& t) { return sum + t.seconds; });
}

json RunTimeEstimate::to_json() const {
  json out = {{"seconds", total()}, {"threads", threads}, {"terms", json::array()}};
  for (const auto& t : terms) {
    json term{{"what", t.what}, {"seconds", t.seconds}};
    if (!t.stage.empty()) term.update({{"stage", t.stage}, {"flops", t.flops}});
    out["terms"].push_back(std::move(term));
  }
  return out;
}

std::string bytes_text(double bytes) {
  if (bytes >= 0x1p30) return fmt::format("{:.2f} GiB", bytes / 0x1p30);
  if (bytes >= 0x1p20) return fmt::format("{:.1f} MiB", bytes / 0x1p20);
  return fmt::format("{:.1f} KiB", bytes / 0x1p10);
}

std::string duration_text(double seconds) {
  if (seconds < 10) return fmt::format("{:.2g} s", seconds);
  return seconds < 120 ? fmt::format("{:.0f} s", seconds) : fmt::format("{:.0f} min", seconds / 60);
}

}  // namespace pacflow
