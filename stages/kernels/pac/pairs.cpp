#include "stages/kernels/pac/pairs.hpp"

#include <cmath>
#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "stages/common/tensor_names.hpp"

namespace pacflow::mi {

namespace {

std::string pair_text(const ChannelPair& p) { return fmt::format("[{},{}]", p.phase_channel, p.amplitude_channel); }

void check_channel(std::int64_t c, const ChannelPair& pair, std::int64_t channels) {
  if (c < 0 || c >= channels)
    throw ParamError("pairs", fmt::format("pair {} names channel {}, but the input has {} channel{} (0 to {})",
                                          pair_text(pair), c, channels, channels == 1 ? "" : "s", channels - 1));
}

// A whole number, as a channel index (checked against the input when planned).
std::int64_t channel_number(const std::string& param, const json& value, const json& pair) {
  constexpr double kLargest = 9007199254740992.0;  // 2^53: every whole double below it is exact
  if (!value.is_number() || value.get<double>() != std::floor(value.get<double>()) ||
      std::abs(value.get<double>()) > kLargest)
    throw ParamError(param, fmt::format("pair {} holds {}, which is not a channel index", pair.dump(), value.dump()));
  return static_cast<std::int64_t>(value.get<double>());
}

}  // namespace

PairSpec PairSpec::parse(const std::string& param, const json& spec) {
  if (spec.is_string() && spec.get<std::string>() == "diag") return {};
  if (spec.is_string() && spec.get<std::string>() == "all") return {Kind::All, {}};
  if (!spec.is_array())
    throw ParamError(param, fmt::format("{} is not a pairing; use diag, all or a list such as [[0,1],[2,0]]", spec.dump()));
  if (spec.empty()) throw ParamError(param, "the list is empty; use diag for each channel with itself");
  if (spec.size() > static_cast<std::size_t>(kMaxPairs))
    throw ParamError(param, fmt::format("{} pairs are more than the {} allowed", spec.size(), kMaxPairs));
  PairSpec out{Kind::Listed, {}};
  for (const auto& pair : spec) {
    if (!pair.is_array() || pair.size() != 2)
      throw ParamError(param, fmt::format("{} is not a pair [phase channel, amplitude channel]", pair.dump()));
    out.listed.push_back({channel_number(param, pair[0], pair), channel_number(param, pair[1], pair)});
  }
  return out;
}

void to_json(json& out, const PairSpec& spec) {
  switch (spec.kind) {
    case PairSpec::Kind::Diagonal: out = "diag"; return;
    case PairSpec::Kind::All: out = "all"; return;
    case PairSpec::Kind::Listed:
      out = json::array();
      for (const auto& p : spec.listed) out.push_back({p.phase_channel, p.amplitude_channel});
      return;
  }
}

PairPlan::PairPlan(const PairSpec& spec, const StreamInfo& stream) {
  if (spec.kind == PairSpec::Kind::Diagonal) {
    const Shape& lead = stream.leading_dims;
    channels_ = lead.size() >= 2 ? lead[1] : 1;
    return;
  }
  diagonal_ = false;
  const Shape& lead = stream.leading_dims;
  if (lead.size() < 2 || stream.leading_names.size() < 2 || stream.leading_names[0] != "epochs" ||
      stream.leading_names[1] != "channels")
    throw InputError("cross-channel pairs need an input laid out [epochs][channels]…[time]");
  epochs_ = lead[0];
  channels_ = lead[1];
  for (std::size_t d = 2; d < lead.size(); ++d) {
    segments_ *= lead[d];
    segment_dims_.push_back(lead[d]);
    segment_names_.push_back(stream.leading_names[d]);
  }
  if (spec.kind == PairSpec::Kind::All) {
    // Counted in double before the list is made: 10^5 channels would be 10^10 pairs.
    const double count = static_cast<double>(channels_) * static_cast<double>(channels_);
    if (count > static_cast<double>(kMaxPairs))
      throw ParamError("pairs", fmt::format("all ordered pairs of {} channels are {:g} pairs, more than the {} allowed "
                                            "(each adds an output row per epoch); list the pairs, [[i, j], …]",
                                            channels_, count, kMaxPairs));
    pairs_.reserve(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < channels_; ++i)
      for (std::int64_t j = 0; j < channels_; ++j) pairs_.push_back({i, j});
    return;
  }
  for (const auto& pair : spec.listed) {
    check_channel(pair.phase_channel, pair, channels_);
    check_channel(pair.amplitude_channel, pair, channels_);
  }
  pairs_ = spec.listed;
}

json PairPlan::resolved_json() const {
  const std::int64_t count = diagonal_ ? channels_ : static_cast<std::int64_t>(pairs_.size());
  if (count > kListedPairs)
    return diagonal_ ? fmt::format("each of the {} channels with itself (diag)", count)
                     : fmt::format("{} pairs (listed up to {})", count, kListedPairs);
  json out = json::array();
  for (std::int64_t c = 0; diagonal_ && c < count; ++c) out.push_back({c, c});
  for (const auto& p : pairs_) out.push_back({p.phase_channel, p.amplitude_channel});
  return out;
}

RowLayout PairPlan::rows() const {
  if (diagonal_) return {};
  const auto n_pairs = static_cast<std::int64_t>(pairs_.size());
  RowLayout layout{channels_ * segments_, n_pairs * segments_, {epochs_, n_pairs}, {"epochs", "pairs"}};
  layout.leading.insert(layout.leading.end(), segment_dims_.begin(), segment_dims_.end());
  layout.leading_names.insert(layout.leading_names.end(), segment_names_.begin(), segment_names_.end());
  return layout;
}

std::int64_t PairPlan::row_count(std::int64_t series) const { return rows().rows(series); }

std::int64_t PairPlan::series_of(std::int64_t row, bool phase) const {
  if (diagonal_) return row;
  const auto per_epoch = static_cast<std::int64_t>(pairs_.size()) * segments_;
  const std::int64_t epoch = row / per_epoch, within = row % per_epoch;
  const ChannelPair& pair = pairs_[static_cast<std::size_t>(within / segments_)];
  const std::int64_t channel = phase ? pair.phase_channel : pair.amplitude_channel;
  return (epoch * channels_ + channel) * segments_ + within % segments_;
}

}  // namespace pacflow::mi

namespace pacflow::mi {

BatchInputs inputs_of(const Batch& batch, std::int64_t n_pha, std::int64_t n_amp, std::int64_t length, bool envelope) {
  namespace tensors = stages::tensors;
  return {batch.at(tensors::kPhase).values<float>().data(), batch.at(tensors::kAmplitude).values<float>().data(),
          envelope ? batch.at(tensors::kEnvelopePhase).values<float>().data() : nullptr, n_pha, n_amp, length};
}

PairView BatchInputs::pair(std::int64_t phase_series, std::int64_t amplitude_series) const {
  return {phase + phase_series * n_pha * length, amplitude + amplitude_series * n_amp * length,
          envelope_phase ? envelope_phase + amplitude_series * n_pha * n_amp * length : nullptr, n_pha, n_amp, length};
}

}  // namespace pacflow::mi
