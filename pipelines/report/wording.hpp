#pragma once
// Numbers and lists as a paper writes them, for the report's sentences.
#include <cstdint>
#include <string>
#include <vector>

namespace pacflow::report {

std::string number(double value);                             // 52.5, 60, 0.005, 1.25e-05 (4 significant digits)
std::string hz_range(double low, double high);                // "3–25 Hz", "60 Hz" when equal
std::string plural(std::int64_t n, const std::string& word);  // "1 epoch", "8 epochs"
std::string list_and(const std::vector<std::string>& items);  // "a", "a and b", "a, b and c"

}  // namespace pacflow::report
