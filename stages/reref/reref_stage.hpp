#pragma once
// Stage `reref`: re-references the channels of every epoch before any other stage, as the source
// reads them (a preprocessing stage, engine/api/transform.hpp):
//   ref=average (default)  each channel minus the mean of the epoch's channels at each sample
//                          (channels left out by nan_policy=skip are not in the mean);
//   ref=Cz                 each channel minus that one, which is dropped (it would be zero);
//   bipolar=[F3-C3, …]     one channel per pair, the first minus the second, labelled "F3-C3"
//                          (or [[F3, C3], …] where a label holds a '-').
// Channels are named by label (when the input has labels) or by index.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "engine/api/param_binding.hpp"
#include "engine/api/transform.hpp"
#include "stages/io/common/channel_selection.hpp"

namespace pacflow::stages {

// ref= as read: average (no channel) or one channel.
struct RerefChannel {
  std::optional<ChannelSelection> channel;  // unset: average
};
// One item of bipolar= as read: [A, B] (each side a label or index), or the text "A-B", split where
// both sides name a channel once the labels are known.
struct BipolarPair {
  std::optional<std::array<ChannelSelection, 2>> sides;  // [A, B]
  std::string text;                                      // "A-B"
  std::string written;                                   // as written (JSON), for messages
};

class RerefStage final : public Transform {
 public:
  StreamInfo plan(const StreamInfo& before, json& resolved) override;
  bool per_epoch() const override { return true; }
  void apply(const float* in, float* out, std::int64_t first, std::int64_t count) const override;
  // The mean of one epoch's channels, in double; outside the average, the copy of an epoch's input
  // that differences written in place need; and what plan() keeps per channel and per series (the
  // differences, the output labels, the left-out series): with a million channels, ~100 MiB that
  // the memory estimate once left out.
  double host_workspace_bytes() const override;

  static ElementInfo info();
  static void declare(ParamBinder<RerefStage>& p);
  // Refuses ref= with bipolar=; picks the mode.
  void configured();

 private:
  enum class Mode { Average, Channel, Bipolar };
  // Output channel c is input channel plus[c] minus input channel minus[c] (Average: minus unused).
  struct Difference {
    std::size_t plus = 0, minus = 0;
  };
  void plan_bipolar(const std::vector<std::string>& labels);

  Mode mode_ = Mode::Average;
  std::optional<RerefChannel> ref_;  // unset: average
  std::optional<std::vector<BipolarPair>> bipolar_;
  std::vector<Difference> channels_out_;
  std::vector<std::string> labels_out_;
  std::int64_t channels_ = 0, segments_ = 1, length_ = 0;
  std::vector<bool> excluded_;  // per series of the stream before
};

}  // namespace pacflow::stages
