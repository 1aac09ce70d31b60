// The recording sources' epochs spoilt by artefacts: bad annotations, peak-to-peak above a limit.
#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <map>

#include "engine/api/errors.hpp"
#include "stages/io/common/epoch_rejection.hpp"
#include "stages/io/common/recording_source.hpp"

namespace pacflow::stages {

namespace {
// "they overlap BAD_muscle (3x), BAD_eye (1x); 2 exceed reject_ptp: 12 s (Fz 212 uV), …"
std::string rejection_summary(const std::map<std::string, int>& by_annotation, const std::vector<std::string>& by_amplitude) {
  std::vector<std::string> parts;
  if (!by_annotation.empty()) {
    std::vector<std::string> names;
    for (const auto& [text, n] : by_annotation) names.push_back(fmt::format("\"{}\" ({}x)", text, n));
    parts.push_back(fmt::format("overlapping {}", fmt::join(names, ", ")));
  }
  if (!by_amplitude.empty()) {
    constexpr std::size_t kNamed = 5;
    std::vector<std::string> named(by_amplitude.begin(), by_amplitude.begin() + std::min(kNamed, by_amplitude.size()));
    parts.push_back(fmt::format("{} above reject_ptp at {}{}", by_amplitude.size(), fmt::join(named, ", "),
                                by_amplitude.size() > kNamed ? ", …" : ""));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

void RecordingSource::reject(Epochs& epochs, double fs, const std::vector<std::size_t>& selected,
                             json& description, std::vector<std::string>& warnings,
                             const std::stop_token& stop) const {
  const auto bad = bad_annotations(annotations(), bad_prefixes_);
  json rejected = json::array();
  std::map<std::string, int> by_annotation;
  std::vector<std::string> by_amplitude;
  std::vector<std::size_t> kept;
  std::vector<double> series(static_cast<std::size_t>(std::min<std::int64_t>(epochs.length, kPtpChunk)));
  for (std::size_t e = 0; e < epochs.starts.size(); ++e) {
    const std::int64_t start = epochs.starts[e];
    const double start_s = static_cast<double>(start) / fs;
    if (const RecordingAnnotation* a = overlapping_annotation(bad, start, epochs.length, fs)) {
      rejected.push_back({{"start_s", start_s}, {"reason", "annotation"}, {"annotation", a->text},
                          {"annotation_onset_s", a->onset_s}, {"annotation_duration_s", a->duration_s}});
      ++by_annotation[a->text];
      continue;
    }
    bool spoilt = false;
    for (std::size_t c = 0; reject_ptp_ && c < selected.size() && !spoilt; ++c) {
      if (stop.stop_requested()) throw RunCancelled(0);
      const auto& signal = file_->signals()[selected[c]];
      double low = std::numeric_limits<double>::infinity(), high = -low;
      for (std::int64_t at = 0; at < epochs.length; at += kPtpChunk) {
        const auto n = static_cast<int>(std::min(kPtpChunk, epochs.length - at));
        file_->read_physical(static_cast<int>(selected[c]), start + at, n, series.data());
        const auto [lo, hi] = std::minmax_element(series.begin(), series.begin() + n);
        low = std::min(low, *lo);
        high = std::max(high, *hi);
      }
      if (high - low <= *reject_ptp_) continue;
      spoilt = true;
      rejected.push_back({{"start_s", start_s}, {"reason", "peak-to-peak"}, {"channel", signal.label},
                          {"peak_to_peak", high - low}, {"unit", signal.unit}});
      by_amplitude.push_back(fmt::format("{:g} s ({} {:.4g} {})", start_s, signal.label, high - low, signal.unit));
    }
    if (!spoilt) kept.push_back(e);
  }
  description["rejected_epochs"] = rejected;
  description["reject_by_annotation"] = bad_prefixes_;
  if (reject_ptp_) description["reject_ptp"] = *reject_ptp_;
  if (rejected.empty()) return;
  if (kept.empty()) {
    // Blamed on what left most of them out, and the way out named for each rule that did.
    const bool by_ptp = by_amplitude.size() >= by_annotation.size();
    std::vector<std::string> ways;
    if (epochs.starts.size() == 1) ways.push_back("cut the recording into epochs (epoch=4s or events=) so that only the "
                                                  "spoilt ones are left out");
    if (!by_annotation.empty()) ways.push_back("set reject_by_annotation=none");
    if (!by_amplitude.empty()) ways.push_back(fmt::format("raise reject_ptp above {:g}", *reject_ptp_));
    throw ParamError(by_ptp ? "reject_ptp" : "reject_by_annotation",
                     fmt::format("{}: every one of the {} epochs is left out ({}); {}", path_, epochs.starts.size(),
                                 rejection_summary(by_annotation, by_amplitude), fmt::join(ways, ", or ")));
  }
  warnings.push_back(fmt::format("{}: {} of {} epochs left out: {} (each listed in result.json, input.rejected_epochs)",
                                 path_, rejected.size(), epochs.starts.size(),
                                 rejection_summary(by_annotation, by_amplitude)));
  json& epoching = description["epoching"];
  std::vector<std::int64_t> starts, condition;
  json onsets = json::array();
  for (const auto e : kept) {
    starts.push_back(epochs.starts[e]);
    if (!epochs.condition.empty()) condition.push_back(epochs.condition[e]);
    if (epoching.contains("onsets_s")) onsets.push_back(epoching["onsets_s"][e]);
  }
  if (epoching.contains("onsets_s")) epoching["onsets_s"] = onsets;
  epochs.starts = starts;
  epochs.condition = condition;
}

}  // namespace pacflow::stages
