#pragma once
// `channels=`: which signals of a recording to read, by label or by index, in the order given.
//   channels=Fz,Cz        labels (a bare word in a .pipe file; commas separate)
//   channels=0-15         an inclusive index range; channels=0-3,8,Pz mixes all three
//   channels=[Fz, "C3 A2"] a list, where quotes allow labels with spaces
// A label wins over a number or range of the same spelling (a signal may be labelled "1").
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pacflow::stages {

// A selection as written, split into its items (labels, indices, ranges): read when the element is
// made, resolved against a recording's labels when it is opened.
class ChannelSelection {
 public:
  ChannelSelection() = default;
  // Throws ParamError(param) for a value that is not labels or indices, or an empty list.
  static ChannelSelection parse(const std::string& param, const nlohmann::json& spec);
  // Indices into `labels`. Throws ParamError("channels") for an unknown label (with a suggestion
  // and the labels there are), an index out of range, a reversed range, an empty item or a channel
  // selected twice.
  std::vector<std::size_t> select(const std::vector<std::string>& labels) const;
  // The value as written (JSON), for messages.
  const std::string& written() const { return written_; }

 private:
  std::vector<std::string> items_;
  std::string written_;
};

// ChannelSelection::parse("channels", spec).select(labels).
std::vector<std::size_t> select_channels(const nlohmann::json& spec, const std::vector<std::string>& labels);

}  // namespace pacflow::stages
