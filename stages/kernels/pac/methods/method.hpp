#pragma once
// The PAC measures of the `mi` stage (docs/methods.md), behind one interface used by `mi` (the
// observed alignment) and `surrogates` (shifted or swapped alignments), so both always compute the
// same measure with the same parameters.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/api/params.hpp"

namespace pacflow::mi {

enum class MethodKind { Tort, Mvl, Ndpac, Plv, Hr, Gc };

struct MethodSettings {
  MethodKind kind = MethodKind::Tort;
  int bins = 18;                 // tort, hr
  double ndpac_p = 0.05;         // ndpac: significance level of the threshold
  bool gc_unbiased = false;  // gc: subtract the estimator's bias (TensorPAC's MI_BIASCORRECT)

  json to_json() const;
  static MethodSettings from_json(const json& j);
};
// As a report shows them (nlohmann's conversion, found by argument-dependent lookup).
inline void to_json(json& j, const MethodSettings& s) { j = s.to_json(); }

// "tort" -> MethodKind::Tort, …; throws ParamError("method") listing the valid names.
MethodKind parse_method(const std::string& name);
const std::vector<std::string>& method_names();
std::string method_name(MethodKind kind);     // "tort"
std::string method_title(MethodKind kind);    // "Tort modulation index"
std::string method_measure(MethodKind kind);  // the colour-bar label: "MI", "MVL", …
// PLV compares the phase with the phase of the amplitude envelope in each phase band.
bool needs_envelope_phase(MethodKind kind);

// The work of one alignment of every (phase band, amplitude band) cell of a series of `length`
// samples, in the units of the run-time estimate (engine/plan/run_time_estimate.hpp, whose CPU rate
// was measured on W1: 10 amplitude bands, 18 bins): length + 60 · bins per cell. The binned
// measures (tort, hr) walk runs for a group of 16 amplitude bands at once (shifted_mi.hpp), so a
// group costs what W1's 10 bands cost whatever it holds: one band as much as ten (a single cell at
// bins=1024 was estimated 4.4x too fast).
inline double alignment_work(const MethodSettings& settings, std::int64_t n_pha, std::int64_t n_amp,
                             std::int64_t length) {
  constexpr std::int64_t kGroup = 16, kCalibrated = 10;
  const bool binned = settings.kind == MethodKind::Tort || settings.kind == MethodKind::Hr;
  const std::int64_t amp_work = binned ? (n_amp + kGroup - 1) / kGroup * kCalibrated : n_amp;
  return static_cast<double>(n_pha * amp_work) * (static_cast<double>(length) + 60.0 * settings.bins);
}

// The bytes one alignment of a series reads from memory, not from cache, in the CPU kernels: none
// while a group of amplitude bands of the series (16, the kernels' group) fits a core's cache
// (1 MiB), else every group's amplitudes once per alignment. gPAC's 10-minute series (24 MB of
// amplitudes) made the surrogates stage 2.6 times slower than its work at W1's rate: 201
// alignments of 24 MB in 0.7 s per series, about 7 GB/s per thread (bench/estimate_check.sh).
inline double alignment_streamed_bytes(std::int64_t n_amp, std::int64_t length) {
  constexpr std::int64_t kGroup = 16;
  constexpr double kCache = 1 << 20;
  const double group = static_cast<double>(std::min(n_amp, kGroup) * length) * sizeof(float);
  return group > kCache ? static_cast<double>(n_amp * length) * sizeof(float) : 0.0;
}

// One evaluation's inputs: the phases of one series, and the amplitudes (and, for plv, the
// envelope phases) of the same series or of another one (cross-channel pairs, swapped epochs).
struct PairView {
  const float* phase = nullptr;           // [n_pha][T]
  const float* amplitude = nullptr;       // [n_amp][T]
  const float* envelope_phase = nullptr;  // [n_pha][n_amp][T], plv only
  std::int64_t n_pha = 0;
  std::int64_t n_amp = 0;
  std::int64_t length = 0;
};

// One amplitude of Method::evaluate_many: another series' amplitudes (and, for plv, envelope
// phases), as in PairView, the shifts it is aligned at, where their values go (evaluate's out) and
// which of the call's phases it is paired with.
struct AmplitudeJob {
  const float* amplitude = nullptr;
  const float* envelope_phase = nullptr;
  std::span<const std::int64_t> shifts;
  double* out = nullptr;
  std::size_t phase = 0;
};

class Method {
 public:
  virtual ~Method() = default;
  // out[k · n_pha · n_amp + p · n_amp + a] = the measure of phase band p against amplitude band a
  // circularly shifted by shifts[k]: A((t + shifts[k]) mod T), 0 <= shifts[k] < T (for plv the
  // envelope phase is shifted with its amplitude). Each shift's value equals an evaluation of the
  // shifted data with shift 0, up to the order of the floating-point sums. Checks `stop` between
  // shifts and throws RunCancelled(-1) soon after it is requested (out is then incomplete): a
  // million shifts of one series take minutes.
  virtual void evaluate(const PairView& in, std::span<const std::int64_t> shifts, double* out,
                        const std::stop_token& stop = {}) const = 0;
  // evaluate() of each job's phase (phases[job.phase], of one shape; .amplitude and .envelope_phase
  // unused) against the job's amplitude, each job's values bit for bit those of its own evaluate().
  // Tort bins each phase once for all its jobs and builds each amplitude's sums once for all the
  // phases it meets; the others evaluate the jobs side by side.
  virtual void evaluate_many(std::span<const PairView> phases, std::span<const AmplitudeJob> jobs,
                             const std::stop_token& stop = {}) const;
};

// The method for series of `length` samples; throws ParamError for settings out of range.
std::unique_ptr<Method> make_method(const MethodSettings& settings, std::int64_t length);

// ndpac's threshold on |S|²: 2 T erfinv(1 − p)² (Özkurt's, as TensorPAC applies it; 0 for p = 1).
double ndpac_threshold(double p, std::int64_t length);

namespace detail {
std::unique_ptr<Method> make_tort(int bins);
std::unique_ptr<Method> make_heights_ratio(int bins);
std::unique_ptr<Method> make_mean_vector_length();
std::unique_ptr<Method> make_normalised_direct_pac(double threshold);
std::unique_ptr<Method> make_phase_locking_value();
std::unique_ptr<Method> make_gaussian_copula(std::int64_t length, double bias_bits);
}  // namespace detail

}  // namespace pacflow::mi
