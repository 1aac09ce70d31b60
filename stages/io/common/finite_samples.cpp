#include "stages/io/common/finite_samples.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "stages/common/extremes.hpp"

namespace pacflow::stages {

namespace {

// "epoch 1, channel 2[, segment 1]" for series index (epoch * channels + channel) * segments + segment.
std::string series_name(std::int64_t series, std::int64_t channels, std::int64_t segments) {
  const std::int64_t row = series / segments;  // epoch × channels + channel
  return fmt::format("epoch {}, channel {}{}", row / channels, row % channels,
                     segments > 1 ? fmt::format(", segment {}", series % segments) : "");
}

// Whether every sample of x[0, n) (n >= 1) is usable (usable_sample, compared in double as it
// compares), and whether every one equals `value`: one pass of vectors (extremes).
struct QuickScan {
  bool usable = true;
  bool equal = true;
};

QuickScan scan_of(const float* x, std::int64_t n, float value) {
  const Extremes e = extremes(x, n);
  const bool usable = e.finite && static_cast<double>(e.lo) >= -kLargestSample &&
                      static_cast<double>(e.hi) <= kLargestSample;
  return {usable, usable && e.lo == value && e.hi == value};
}

bool flat(const float* x, std::int64_t length) {
  return std::all_of(x, x + length, [first = x[0]](float v) { return v == first; });
}

// What is wrong with an unusable sample, for messages.
std::string unusable_name(float v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return "infinite value";
  return fmt::format("value {:g}", v);
}

constexpr std::size_t kNamed = 10;  // series named in a warning; the rest are counted

void check_series(const std::string& file, const float* x, std::int64_t series, std::int64_t length,
                  std::int64_t channels, std::int64_t segments) {
  if (length > 0) {
    const QuickScan scan = scan_of(x, length, x[0]);
    if (scan.usable && !scan.equal) return;  // the usual series; else the loops below say what is wrong
  }
  for (std::int64_t t = 0; t < length; ++t) {
    if (usable_sample(x[t])) continue;
    const bool finite = std::isfinite(x[t]);
    // An infinity may have been a finite value of a float64 file beyond float32's range (1e300).
    const std::string why = finite ? fmt::format(": beyond ±{:g}, where pacflow's float32 filters would overflow; "
                                                 "rescale the recording",
                                                 kLargestSample)
                            : std::isinf(x[t]) ? ": infinite in the file, or a float64 value there beyond float32's "
                                                 "range (±3.4e38); rescale the recording"
                                               : "";
    throw InputError(fmt::format("{}: {} at {}, sample {}{} (nan_policy=zero or skip lets the run go on)", file,
                                 unusable_name(x[t]), series_name(series, channels, segments), t, why));
  }
  if (flat(x, length))
    throw InputError(fmt::format("{}: {} is flat (every sample is {:g}): a constant has no oscillation whose phase or "
                                 "amplitude could couple; leave it out, or use nan_policy=skip to get NaN results for "
                                 "it",
                                 file, series_name(series, channels, segments), x[0]));
}

// What the scan learns of one series, a piece at a time.
struct SeriesScan {
  std::int64_t non_finite = 0;
  std::int64_t out_of_range = 0;
  bool all_equal = true;
  float first = 0;

  std::int64_t unusable() const { return non_finite + out_of_range; }
  // Counts the piece's unusable samples; with `zero`, replaces them by 0 first. Flatness is judged on
  // the samples as delivered (after the replacement).
  void add(float* x, std::int64_t n, bool zero, bool first_piece) {
    if (n > 0) {
      const QuickScan scan = scan_of(x, n, first_piece ? x[0] : first);
      if (scan.usable) {  // nothing to count or replace
        if (first_piece) first = x[0];
        all_equal = all_equal && scan.equal;
        return;
      }
    }
    for (std::int64_t t = 0; t < n; ++t) {
      if (usable_sample(x[t])) continue;
      (std::isfinite(x[t]) ? out_of_range : non_finite) += 1;
      if (zero) x[t] = 0.0f;
    }
    if (first_piece) first = x[0];
    all_equal = all_equal && std::all_of(x, x + n, [this](float v) { return v == first; });
  }
};

}  // namespace

void require_usable_series(const std::string& file, const float* samples, std::int64_t first, std::int64_t count,
                           std::int64_t length, std::int64_t channels, std::int64_t segments) {
  for (std::int64_t s = 0; s < count; ++s) check_series(file, samples + s * length, first + s, length, channels, segments);
}

void SamplePolicy::scan(StreamInfo& info, std::int64_t channels, std::int64_t segments, const RawRead& read,
                        const std::stop_token& stop) {
  length_ = info.series_length;
  channels_ = channels;
  segments_ = segments;
  excluded_.clear();
  if (policy_ == NanPolicy::Reject) return;
  const std::int64_t series = info.series_count();
  // Whole series, several at a time, when one fits in kScanSamples; else one series in pieces.
  const std::int64_t piece = std::min(length_, kScanSamples);
  // At most 64 Ki series at a time, so the per-series bookkeeping stays small for very short series.
  const std::int64_t chunk =
      std::clamp<std::int64_t>(kScanSamples / std::max<std::int64_t>(length_, 1), 1, std::min<std::int64_t>(series, 1 << 16));
  std::vector<float> buffer(static_cast<std::size_t>(chunk * piece));
  struct Found {
    std::int64_t series, non_finite, out_of_range;
    bool flat;
  };
  std::vector<Found> found;
  std::int64_t non_finite = 0, out_of_range = 0;
  const bool zero = policy_ == NanPolicy::Zero;
  for (std::int64_t first = 0; first < series; first += chunk) {
    const std::int64_t count = std::min(chunk, series - first);
    std::vector<SeriesScan> scans(static_cast<std::size_t>(count));
    for (std::int64_t offset = 0; offset < length_; offset += piece) {
      if (stop.stop_requested()) throw RunCancelled(0);
      const std::int64_t n = std::min(piece, length_ - offset);
      read(first, count, offset, n, buffer.data());
      for (std::int64_t s = 0; s < count; ++s)
        scans[static_cast<std::size_t>(s)].add(buffer.data() + s * n, n, zero, offset == 0);
    }
    for (std::int64_t s = 0; s < count; ++s) {
      const SeriesScan& scan = scans[static_cast<std::size_t>(s)];
      // zero refuses a flat series as reject does; skip leaves it out.
      if (zero && scan.all_equal)
        throw InputError(fmt::format("{}: {} is flat (every sample is {:g}{}): a constant has no oscillation whose "
                                     "phase or amplitude could couple; leave it out, or use nan_policy=skip to get NaN "
                                     "results for it",
                                     file_, series_name(first + s, channels_, segments_), scan.first,
                                     scan.unusable() ? " once its unusable samples are 0" : ""));
      const bool is_flat = scan.unusable() == 0 && scan.all_equal;
      if (scan.unusable() == 0 && !is_flat) continue;
      found.push_back({first + s, scan.non_finite, scan.out_of_range, is_flat});
      non_finite += scan.non_finite;
      out_of_range += scan.out_of_range;
    }
  }
  info.description["nan_policy"] = zero ? "zero" : "skip";
  const auto flat_series = std::count_if(found.begin(), found.end(), [](const Found& f) { return f.flat; });
  info.description["non_finite_samples"] = non_finite;
  info.description["out_of_range_samples"] = out_of_range;
  info.description["series_with_unusable_samples"] = static_cast<std::int64_t>(found.size()) - flat_series;
  info.description["flat_series"] = flat_series;
  if (found.empty()) return;
  std::vector<std::string> named;
  for (std::size_t k = 0; k < std::min(found.size(), kNamed); ++k) {
    const Found& f = found[k];
    const std::string name = series_name(f.series, channels_, segments_);
    std::vector<std::string> what;
    if (f.non_finite) what.push_back(fmt::format("{} non-finite sample{}", f.non_finite, f.non_finite == 1 ? "" : "s"));
    if (f.out_of_range)
      what.push_back(fmt::format("{} sample{} beyond ±{:g}", f.out_of_range, f.out_of_range == 1 ? "" : "s",
                                 kLargestSample));
    named.push_back(f.flat ? name + " (flat)" : fmt::format("{} ({})", name, fmt::join(what, ", ")));
  }
  const std::string more = found.size() > kNamed ? fmt::format("; and {} more", found.size() - kNamed) : "";
  const std::int64_t samples = non_finite + out_of_range;
  if (zero) {
    info.warnings.push_back(fmt::format("{}: {} NaN, infinite or out-of-range sample{} in {} series replaced by 0 "
                                        "(nan_policy=zero): {}{}",
                                        file_, samples, samples == 1 ? "" : "s", found.size(), fmt::join(named, "; "),
                                        more));
    return;
  }
  for (const Found& f : found) excluded_.push_back(f.series);
  info.excluded_series = excluded_;
  info.warnings.push_back(fmt::format("{}: {} series left out, every result computed from them is NaN "
                                      "(nan_policy=skip): {}{}",
                                      file_, found.size(), fmt::join(named, "; "), more));
}

void SamplePolicy::apply(float* samples, std::int64_t first, std::int64_t count) const {
  if (policy_ == NanPolicy::Zero)
    std::replace_if(samples, samples + count * length_, [](float v) { return !usable_sample(v); }, 0.0f);
  if (policy_ != NanPolicy::Skip) {
    require_usable_series(file_, samples, first, count, length_, channels_, segments_);
    return;
  }
  // skip: excluded series become zeros (the engine turns their results into NaN); every other series
  // is usable, as the scan found it, unless the file changed since.
  auto excluded = std::lower_bound(excluded_.begin(), excluded_.end(), first);
  for (std::int64_t s = 0; s < count; ++s) {
    float* x = samples + s * length_;
    if (excluded != excluded_.end() && *excluded == first + s) {
      std::fill_n(x, length_, 0.0f);
      ++excluded;
    } else {
      check_series(file_, x, first + s, length_, channels_, segments_);
    }
  }
}

}  // namespace pacflow::stages
