#include "stages/io/common/finite_samples.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "engine/errors.hpp"

namespace pacflow::stages {

namespace {

// "epoch 1, channel 2[, segment 1]" for series index (epoch * channels + channel) * segments + segment.
std::string series_name(std::int64_t series, std::int64_t channels, std::int64_t segments) {
  const std::int64_t row = series / segments;  // epoch × channels + channel
  return fmt::format("epoch {}, channel {}{}", row / channels, row % channels,
                     segments > 1 ? fmt::format(", segment {}", series % segments) : "");
}

bool flat(const float* x, std::int64_t length) {
  return std::all_of(x, x + length, [first = x[0]](float v) { return v == first; });
}

std::int64_t non_finite_count(const float* x, std::int64_t length) {
  return std::count_if(x, x + length, [](float v) { return !std::isfinite(v); });
}

constexpr std::size_t kNamed = 10;  // series named in a warning; the rest are counted

}  // namespace

ParamSpec nan_policy_param() {
  return {"nan_policy", ParamType::String, "reject", "",
          "NaN or infinite samples and flat series: reject (stop, naming them), zero (non-finite samples become 0, "
          "with a warning; flat series still stop the run) or skip (that series' results are NaN, with a warning)"};
}

NanPolicy parse_nan_policy(const std::string& value) {
  if (value == "reject") return NanPolicy::Reject;
  if (value == "zero") return NanPolicy::Zero;
  if (value == "skip") return NanPolicy::Skip;
  throw ParamError("nan_policy", fmt::format("\"{}\" is not a policy; use reject, zero or skip", value));
}

namespace {

void check_series(const std::string& file, const float* x, std::int64_t series, std::int64_t length,
                  std::int64_t channels, std::int64_t segments) {
  for (std::int64_t t = 0; t < length; ++t)
    if (!std::isfinite(x[t]))
      throw InputError(fmt::format("{}: {} at {}, sample {} (nan_policy=zero or skip lets the run go on)", file,
                                   std::isnan(x[t]) ? "NaN" : "infinite value", series_name(series, channels, segments),
                                   t));
  if (flat(x, length))
    throw InputError(fmt::format("{}: {} is flat (every sample is {:g}): a constant has no oscillation whose phase or "
                                 "amplitude could couple; leave it out, or use nan_policy=skip to get NaN results for "
                                 "it",
                                 file, series_name(series, channels, segments), x[0]));
}

}  // namespace

void require_usable_series(const std::string& file, const float* samples, std::int64_t first, std::int64_t count,
                           std::int64_t length, std::int64_t channels, std::int64_t segments) {
  for (std::int64_t s = 0; s < count; ++s) check_series(file, samples + s * length, first + s, length, channels, segments);
}

void SamplePolicy::scan(StreamInfo& info, std::int64_t channels, std::int64_t segments, const RawRead& read) {
  length_ = info.series_length;
  channels_ = channels;
  segments_ = segments;
  excluded_.clear();
  if (policy_ == NanPolicy::Reject) return;
  const std::int64_t series = info.series_count();
  const std::int64_t chunk = std::clamp<std::int64_t>((std::int64_t{1} << 22) / std::max<std::int64_t>(length_, 1), 1, series);
  std::vector<float> buffer(static_cast<std::size_t>(chunk * length_));
  struct Found {
    std::int64_t series, non_finite;
    bool flat;
  };
  std::vector<Found> found;
  std::int64_t samples = 0;
  for (std::int64_t first = 0; first < series; first += chunk) {
    const std::int64_t count = std::min(chunk, series - first);
    read(first, count, buffer.data());
    for (std::int64_t s = 0; s < count; ++s) {
      float* x = buffer.data() + s * length_;
      const std::int64_t bad = non_finite_count(x, length_);
      if (policy_ == NanPolicy::Zero) {
        std::replace_if(x, x + length_, [](float v) { return !std::isfinite(v); }, 0.0f);
        require_usable_series(file_, x, first + s, 1, length_, channels_, segments_);  // flat: refused
      }
      const bool is_flat = bad == 0 && flat(x, length_);
      if (bad == 0 && !is_flat) continue;
      found.push_back({first + s, bad, is_flat});
      samples += bad;
    }
  }
  info.description["nan_policy"] = policy_ == NanPolicy::Zero ? "zero" : "skip";
  const auto flat_series = std::count_if(found.begin(), found.end(), [](const Found& f) { return f.flat; });
  info.description["non_finite_samples"] = samples;
  info.description["series_with_non_finite_samples"] = static_cast<std::int64_t>(found.size()) - flat_series;
  info.description["flat_series"] = flat_series;
  if (found.empty()) return;
  std::vector<std::string> named;
  for (std::size_t k = 0; k < std::min(found.size(), kNamed); ++k) {
    const Found& f = found[k];
    const std::string name = series_name(f.series, channels_, segments_);
    named.push_back(f.flat ? name + " (flat)"
                           : fmt::format("{} ({} non-finite sample{})", name, f.non_finite, f.non_finite == 1 ? "" : "s"));
  }
  const std::string more = found.size() > kNamed ? fmt::format("; and {} more", found.size() - kNamed) : "";
  if (policy_ == NanPolicy::Zero) {
    info.warnings.push_back(fmt::format("{}: {} NaN or infinite sample{} in {} series replaced by 0 "
                                        "(nan_policy=zero): {}{}",
                                        file_, samples, samples == 1 ? "" : "s", found.size(),
                                        fmt::join(named, "; "), more));
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
    std::replace_if(samples, samples + count * length_, [](float v) { return !std::isfinite(v); }, 0.0f);
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
