#include "pipelines/report/wording.hpp"

#include <fmt/format.h>

namespace pacflow::report {

std::string number(double value) { return fmt::format("{:.4g}", value); }

std::string hz_range(double low, double high) {
  return low == high ? number(low) + " Hz" : number(low) + "–" + number(high) + " Hz";
}

std::string plural(std::int64_t n, const std::string& word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

std::string list_and(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

}  // namespace pacflow::report
