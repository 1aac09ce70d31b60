#pragma once
// Series a file source cannot deliver as they are: those holding NaN or infinite samples (one bad
// sample would silently turn the series' result into NaN, or, in binning kernels, into an out-of-range
// bin), samples so large that the float32 filters and transforms would overflow (kLargestSample in
// stages/common/sample_range.hpp), and flat ones (every sample equal: no oscillation, so no phase or
// amplitude to couple; the filters would turn the constant into rounding noise and the measures into
// numbers that mean nothing).
// File sources deal with them by `nan_policy`:
//   reject (default)  the run stops with an InputError naming the file, epoch, channel (and sample);
//   zero              each unusable sample (NaN, infinite, beyond kLargestSample) is replaced by 0,
//                     with a warning counting them per series; a series that is flat (before or
//                     after) is still refused, as with reject;
//   skip              such a series is delivered as zeros and marked excluded
//                     (StreamInfo::excluded_series): every result computed from it is NaN, and a
//                     warning names the series.
// zero and skip scan the whole input once when the source opens (like its checksum), so their
// warnings are known before the run and `validate` shows them too. The scan reads at most
// kScanSamples samples at a time, however long a series is, and stops when the run is asked to.
#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/api/param_binding.hpp"
#include "engine/api/stage.hpp"
#include "stages/common/sample_range.hpp"

namespace pacflow::stages {

enum class NanPolicy { Reject, Zero, Skip };

// The most samples the zero and skip scans hold at once (16 MiB of float32).
inline constexpr std::int64_t kScanSamples = std::int64_t{1} << 22;

// The `nan_policy` parameter every file source shares, declared on its binder and bound to `field`
// (a NanPolicy): reject (the default), zero or skip; the engine refuses anything else.
template <class E, class Field>
void declare_nan_policy(ParamBinder<E>& p, Field field) {
  p.choice(field, "nan_policy", {{"reject", NanPolicy::Reject}, {"zero", NanPolicy::Zero}, {"skip", NanPolicy::Skip}},
           "reject",
           "NaN, infinite or overflowing (|x| > 1e20) samples and flat series: reject (stop, naming them), zero "
           "(such samples become 0, with a warning; flat series still stop the run) or skip (that series' results "
           "are NaN, with a warning)");
}

// Checks series [first, first + count) held in `samples` ([count][length], series index =
// (epoch * channels + channel) * segments + segment). Throws InputError "FILE: NaN at epoch E,
// channel C[, segment S], sample T" for the first unusable sample (NaN, infinite or beyond
// kLargestSample), or "FILE: epoch E, channel C is flat …" for the first series whose samples are
// all equal.
void require_usable_series(const std::string& file, const float* samples, std::int64_t first, std::int64_t count,
                           std::int64_t length, std::int64_t channels, std::int64_t segments = 1);

// A source's policy applied: scans the input when it opens, then fixes each batch it reads.
class SamplePolicy {
 public:
  SamplePolicy() = default;  // reject, for no file yet: a source sets its own once configured
  SamplePolicy(NanPolicy policy, std::string file) : policy_(policy), file_(std::move(file)) {}

  // Reads samples [offset, offset + samples) of series [first, first + count) into dst, as
  // [count][samples], before the policy (the source's raw read).
  using RawRead =
      std::function<void(std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples, float* dst)>;
  // Sets the geometry from `info` (whose shape is set; series index as for require_usable_series).
  // For zero and skip, also reads the whole input once through `read`, in pieces of at most
  // kScanSamples, and adds to `info` the warning, the excluded series (skip) and what was found
  // (description "nan_policy", "non_finite_samples", "out_of_range_samples",
  // "series_with_unusable_samples", "flat_series"). Throws RunCancelled(0) once `stop` is requested.
  void scan(StreamInfo& info, std::int64_t channels, std::int64_t segments, const RawRead& read,
            const std::stop_token& stop);
  // Applies the policy to series [first, first + count) just read into `samples`.
  void apply(float* samples, std::int64_t first, std::int64_t count) const;

 private:
  NanPolicy policy_ = NanPolicy::Reject;
  std::string file_;
  std::int64_t length_ = 0, channels_ = 1, segments_ = 1;
  std::vector<std::int64_t> excluded_;  // skip: ascending
};

}  // namespace pacflow::stages
