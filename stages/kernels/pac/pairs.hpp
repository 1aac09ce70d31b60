#pragma once
// Which (phase channel, amplitude channel) pairs the mi and surrogates stages compute (spec §5,
// cross-channel PAC), and for each output row which series give its phase and its amplitude.
//
// The stream's leading dims are {epochs, channels, segments…}: series (e, c, s) is row
// (e·C + c)·S + s. `diag` (the default) pairs each channel with itself, one output row per series.
// Other pairings need every channel of an epoch in one batch: their outputs have P·S rows per
// epoch (C·S series), laid out [E][P][S…], with P the number of pairs.
#include <cstdint>
#include <vector>

#include "engine/api/stage.hpp"
#include "stages/kernels/pac/methods/method.hpp"

namespace pacflow::mi {

struct ChannelPair {
  std::int64_t phase_channel = 0;
  std::int64_t amplitude_channel = 0;
};

// The most pairs a plan holds: pairs=all of 256 channels. The list is made while planning, before
// the memory estimate counts anything, and again in the report (channel_pairs, a few MiB at this
// bound); every pair adds an output row per epoch. Beyond it, list the pairs wanted.
inline constexpr std::int64_t kMaxPairs = std::int64_t{1} << 16;
// The most pairs the report lists (pairs_resolved); more are described in words.
inline constexpr std::int64_t kListedPairs = 1024;

// pairs= as read: diag, all (every ordered pair, phase channel major) or the pairs listed.
struct PairSpec {
  enum class Kind { Diagonal, All, Listed };
  Kind kind = Kind::Diagonal;
  std::vector<ChannelPair> listed;  // Listed: as given, channels not yet checked against an input
  // "diag", "all" or [[i, j], …] of whole numbers. Throws ParamError(param) for anything else, an
  // empty list or more than kMaxPairs pairs.
  static PairSpec parse(const std::string& param, const json& spec);
};
// As pairs= writes it: "diag", "all" or [[i, j], …] (the report's mi_pairs).
void to_json(json& out, const PairSpec& spec);

class PairPlan {
 public:
  PairPlan() = default;
  // Throws ParamError("pairs") naming a pair whose channel the input does not have, or all pairs of
  // more channels than kMaxPairs pairs allow. diag lists nothing: its rows are the series (a million
  // channels once made a million pairs, and their JSON, while planning).
  PairPlan(const PairSpec& spec, const StreamInfo& stream);

  bool diagonal() const { return diagonal_; }
  // The pairs, unless diagonal.
  const std::vector<ChannelPair>& pairs() const { return pairs_; }
  // The pairs as the report shows them: [[i, j], …] up to kListedPairs, else in words.
  json resolved_json() const;
  // Host memory the plan holds (the pair list).
  double bytes() const { return static_cast<double>(pairs_.capacity() * sizeof(ChannelPair)); }
  // How per-pair outputs map onto series (per series for diag).
  RowLayout rows() const;
  // Output rows of a batch of `series` series (whole epochs unless diagonal).
  std::int64_t row_count(std::int64_t series) const;
  // The batch-relative series whose phase, and whose amplitude, output row `row` pairs.
  std::int64_t phase_series(std::int64_t row) const { return series_of(row, true); }
  std::int64_t amplitude_series(std::int64_t row) const { return series_of(row, false); }

 private:
  std::int64_t series_of(std::int64_t row, bool phase) const;

  bool diagonal_ = true;
  std::vector<ChannelPair> pairs_;
  std::int64_t epochs_ = 1, channels_ = 1, segments_ = 1;
  std::vector<std::int64_t> segment_dims_;
  std::vector<std::string> segment_names_;
};

// The tensors of a batch the measures read: `phase` [n_pha][T], `amplitude` [n_amp][T] and, for
// plv, `envelope_phase` [n_pha][n_amp][T] per series.
struct BatchInputs {
  const float* phase = nullptr;
  const float* amplitude = nullptr;
  const float* envelope_phase = nullptr;
  std::int64_t n_pha = 0, n_amp = 0, length = 0;
  // The phases of one series of the batch with the amplitudes of another (or the same).
  PairView pair(std::int64_t phase_series, std::int64_t amplitude_series) const;
};
BatchInputs inputs_of(const Batch& batch, std::int64_t n_pha, std::int64_t n_amp, std::int64_t length, bool envelope);

}  // namespace pacflow::mi
