#include "stages/io/common/epoch_rejection.hpp"

#include <algorithm>
#include <cctype>

namespace pacflow::stages {

namespace {

bool starts_without_case(const std::string& text, const std::string& prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
           return std::toupper(static_cast<unsigned char>(a)) == std::toupper(static_cast<unsigned char>(b));
         });
}

}  // namespace

std::vector<RecordingAnnotation> bad_annotations(const std::vector<RecordingAnnotation>& annotations,
                                                 const std::vector<std::string>& prefixes) {
  std::vector<RecordingAnnotation> bad;
  for (const auto& a : annotations)
    if (std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) {
          return starts_without_case(a.text, p) || (!a.alias.empty() && starts_without_case(a.alias, p));
        }))
      bad.push_back(a);
  return bad;
}

const RecordingAnnotation* overlapping_annotation(const std::vector<RecordingAnnotation>& bad, std::int64_t start,
                                                  std::int64_t length, double fs) {
  const double begin_s = static_cast<double>(start) / fs, end_s = static_cast<double>(start + length) / fs;
  for (const auto& a : bad)
    if (a.onset_s < end_s && a.onset_s + a.duration_s > begin_s) return &a;
  return nullptr;
}

double peak_to_peak(const double* samples, std::int64_t n) {
  const auto [low, high] = std::minmax_element(samples, samples + n);
  return n > 0 ? *high - *low : 0.0;
}

}  // namespace pacflow::stages
