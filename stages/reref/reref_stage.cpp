#include "stages/reref/reref_stage.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/api/errors.hpp"
#include "stages/io/common/channel_selection.hpp"

namespace pacflow::stages {

namespace {

// One channel by label or index, as channels= names it; errors name `param`.
std::size_t one_channel(const ChannelSelection& spec, const std::vector<std::string>& labels, const std::string& param) {
  try {
    const auto found = spec.select(labels);
    if (found.size() != 1) throw ParamError(param, fmt::format("{} names {} channels, not one", spec.written(), found.size()));
    return found.front();
  } catch (const ParamError& e) {
    if (e.param() == param) throw;
    throw ParamError(param, e.bare_message());
  }
}

RerefChannel parse_ref(const std::string& param, const json& value) {
  if (value.is_string() && value.get<std::string>() == "average") return {};
  return {ChannelSelection::parse(param, value)};
}

std::vector<BipolarPair> parse_bipolar(const std::string& param, const json& value) {
  if (!value.is_array() || value.empty())
    throw ParamError(param, fmt::format("expected a list of pairs such as [F3-C3, C3-P3], got {}", value.dump()));
  std::vector<BipolarPair> pairs;
  for (const auto& pair : value) {
    BipolarPair p{{}, {}, pair.dump()};
    if (pair.is_array()) {
      if (pair.size() != 2) throw ParamError(param, fmt::format("{} is not a pair of channels", pair.dump()));
      p.sides = {ChannelSelection::parse(param, pair[0]), ChannelSelection::parse(param, pair[1])};
    } else if (pair.is_string()) {
      p.text = pair.get<std::string>();
    } else {
      throw ParamError(param, fmt::format("{} is not a pair of channels (A-B or [A, B])", pair.dump()));
    }
    pairs.push_back(std::move(p));
  }
  return pairs;
}

}  // namespace

void RerefStage::declare(ParamBinder<RerefStage>& p) {
  p.parsed_optional(&RerefStage::ref_, "ref", parse_ref,
                    "average (each channel minus the mean of the epoch's channels; the default) or a channel (label or "
                    "index) subtracted from the others and dropped");
  p.parsed_optional(&RerefStage::bipolar_, "bipolar", parse_bipolar,
                    "pairs [F3-C3, C3-P3] (or [[F3, C3], …]): one channel per pair, the first minus the second; "
                    "replaces ref");
}

ElementInfo RerefStage::info() {
  return element_info<RerefStage>(
      "reref", "re-referencing (average, one channel, or bipolar pairs) as the source reads; right after the source");
}

void RerefStage::configured() {
  if (bipolar_) {
    if (ref_) throw ParamError("bipolar", "use either ref= (average or one channel) or bipolar= (pairs), not both");
    mode_ = Mode::Bipolar;
  } else if (ref_ && ref_->channel) {
    mode_ = Mode::Channel;
  }
}

void RerefStage::plan_bipolar(const std::vector<std::string>& labels) {
  for (const BipolarPair& pair : *bipolar_) {
    Difference d;
    if (pair.sides) {
      d = {one_channel((*pair.sides)[0], labels, "bipolar"), one_channel((*pair.sides)[1], labels, "bipolar")};
    } else {
      // "A-B": the one split at a '-' whose two sides both name a channel.
      const std::string& text = pair.text;
      std::vector<Difference> splits;
      std::string why;  // what the first split found wrong
      for (auto dash = text.find('-'); dash != std::string::npos; dash = text.find('-', dash + 1)) {
        try {
          splits.push_back({one_channel(ChannelSelection::parse("bipolar", text.substr(0, dash)), labels, "bipolar"),
                            one_channel(ChannelSelection::parse("bipolar", text.substr(dash + 1)), labels, "bipolar")});
        } catch (const ParamError& e) {
          if (why.empty()) why = e.bare_message();
        }
      }
      if (splits.size() > 1)
        throw ParamError("bipolar", fmt::format("\"{}\" is ambiguous as two channels joined by '-'; write the pair as "
                                                "[A, B]",
                                                text));
      if (splits.empty())
        throw ParamError("bipolar", fmt::format("\"{}\" is not two channels joined by '-'{}", text,
                                                why.empty() ? "" : ": " + why));
      d = splits.front();
    }
    if (d.plus == d.minus) throw ParamError("bipolar", fmt::format("{} pairs a channel with itself", pair.written));
    channels_out_.push_back(d);
    labels_out_.push_back(labels[d.plus].empty() ? fmt::format("{}-{}", d.plus, d.minus)
                                                 : fmt::format("{}-{}", labels[d.plus], labels[d.minus]));
  }
}

StreamInfo RerefStage::plan(const StreamInfo& before, json& resolved) {
  if (before.leading_dims.size() < 2 || before.leading_names.at(1) != "channels")
    throw InputError("reref needs an input laid out [epochs][channels]…[time]");
  channels_ = before.leading_dims[1];
  segments_ = before.leading_dims.size() > 2 ? before.leading_dims[2] : 1;
  length_ = before.series_length;
  if (channels_ < 2) throw InputError(fmt::format("reref needs at least 2 channels; the input has {}", channels_));
  std::vector<std::string> labels =
      before.labels.size() > 1 && !before.labels[1].empty() ? before.labels[1]
                                                             : std::vector<std::string>(static_cast<std::size_t>(channels_));
  channels_out_.clear();
  labels_out_.clear();
  if (mode_ == Mode::Bipolar) {
    plan_bipolar(labels);
    resolved["bipolar"] = labels_out_;
  } else if (mode_ == Mode::Channel) {
    const std::size_t ref = one_channel(*ref_->channel, labels, "ref");
    for (std::size_t c = 0; c < labels.size(); ++c) {
      if (c == ref) continue;
      channels_out_.push_back({c, ref});
      labels_out_.push_back(labels[c]);
    }
    resolved["ref"] = labels[ref].empty() ? json(ref) : json(labels[ref]);
  } else {
    for (std::size_t c = 0; c < labels.size(); ++c) channels_out_.push_back({c, 0});
    labels_out_ = labels;
  }
  // Series left out by the source: an output series built from one is left out too (in the
  // average, they are left out of the mean instead).
  excluded_.assign(static_cast<std::size_t>(before.series_count()), false);
  for (const auto k : before.excluded_series) excluded_[static_cast<std::size_t>(k)] = true;
  StreamInfo after = before;
  after.leading_dims[1] = static_cast<std::int64_t>(channels_out_.size());
  if (after.labels.size() < 2) after.labels.resize(2);
  after.labels[1] = std::any_of(labels.begin(), labels.end(), [](const auto& l) { return !l.empty(); }) ||
                            mode_ == Mode::Bipolar
                        ? labels_out_
                        : std::vector<std::string>{};
  after.excluded_series.clear();
  const auto out_channels = static_cast<std::int64_t>(channels_out_.size());
  for (std::int64_t e = 0; e < before.leading_dims[0]; ++e)
    for (std::int64_t c = 0; c < out_channels; ++c)
      for (std::int64_t s = 0; s < segments_; ++s) {
        const Difference& d = channels_out_[static_cast<std::size_t>(c)];
        const auto series = [&](std::size_t channel) {
          return static_cast<std::size_t>((e * channels_ + static_cast<std::int64_t>(channel)) * segments_ + s);
        };
        if (excluded_[series(d.plus)] || (mode_ != Mode::Average && excluded_[series(d.minus)]))
          after.excluded_series.push_back((e * out_channels + c) * segments_ + s);
      }
  if (after.description.contains("channel_labels")) after.description["channel_labels"] = after.labels[1];
  resolved["channels"] = after.labels[1].empty() ? json(out_channels) : json(after.labels[1]);
  return after;
}

void RerefStage::apply(const float* in, float* out, std::int64_t first, std::int64_t count) const {
  const auto t = static_cast<std::size_t>(length_);
  const auto out_channels = static_cast<std::int64_t>(channels_out_.size());
  std::vector<double> mean(t);
  std::vector<float> copy;  // an epoch's input, when it is rewritten in place by differences
  for (std::int64_t e = 0; e < count; ++e) {
    const float* epoch_in = in + static_cast<std::size_t>(e * channels_ * segments_) * t;
    if (in == out && mode_ != Mode::Average) {
      copy.assign(epoch_in, epoch_in + static_cast<std::size_t>(channels_ * segments_) * t);
      epoch_in = copy.data();
    }
    float* epoch_out = out + static_cast<std::size_t>(e * out_channels * segments_) * t;
    for (std::int64_t s = 0; s < segments_; ++s) {
      const auto row = [&](auto* base, std::int64_t channel) { return base + static_cast<std::size_t>(channel * segments_ + s) * t; };
      const auto left_out = [&](std::size_t channel) {
        return excluded_[static_cast<std::size_t>(((first + e) * channels_ + static_cast<std::int64_t>(channel)) * segments_ + s)];
      };
      if (mode_ == Mode::Average) {
        std::fill(mean.begin(), mean.end(), 0.0);
        std::int64_t used = 0;
        for (std::int64_t c = 0; c < channels_; ++c) {
          if (left_out(static_cast<std::size_t>(c))) continue;
          const float* x = row(epoch_in, c);
          for (std::size_t i = 0; i < t; ++i) mean[i] += x[i];
          ++used;
        }
        if (used > 0)
          for (double& m : mean) m /= static_cast<double>(used);
        for (std::int64_t c = 0; c < channels_; ++c) {  // in place allowed: each value read before it is written
          if (left_out(static_cast<std::size_t>(c))) continue;
          const float* x = row(epoch_in, c);
          float* y = row(epoch_out, c);
          for (std::size_t i = 0; i < t; ++i) y[i] = static_cast<float>(static_cast<double>(x[i]) - mean[i]);
        }
        continue;
      }
      for (std::int64_t c = 0; c < out_channels; ++c) {
        const Difference& d = channels_out_[static_cast<std::size_t>(c)];
        const float* a = row(epoch_in, static_cast<std::int64_t>(d.plus));
        const float* b = row(epoch_in, static_cast<std::int64_t>(d.minus));
        float* y = row(epoch_out, c);
        for (std::size_t i = 0; i < t; ++i) y[i] = static_cast<float>(static_cast<double>(a[i]) - static_cast<double>(b[i]));
      }
    }
  }
}

double RerefStage::host_workspace_bytes() const {
  double labels = 0;
  for (const auto& label : labels_out_) labels += static_cast<double>(sizeof(std::string) + label.capacity());
  const double epoch_copy =
      mode_ == Mode::Average ? 0.0 : static_cast<double>(channels_ * segments_ * length_) * sizeof(float);
  return static_cast<double>(length_) * sizeof(double) + epoch_copy +
         static_cast<double>(channels_out_.capacity() * sizeof(Difference)) + labels +
         static_cast<double>(excluded_.capacity()) / 8.0;
}

}  // namespace pacflow::stages
