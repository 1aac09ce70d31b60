#pragma once
// Source `array`: an array in the caller's memory (HostArray: float32, float64, int16 or int32, C
// order), its axes named by `layout=` as the npy source's are (E epochs, C channels, S segments,
// T time: ET, CT, ECT, ECST, …). Unlike a file's, the layout is never guessed: it must be given.
// `channel_names=[...]` labels the channels (result.json, the png sink's panels). Read batch by
// batch in place; NaN and Inf samples, flat series: nan_policy, as the file sources.
// Not a built-in element (a .pipe file cannot name memory): a caller adds it to its own registry
// with the array it reads (MemorySource::info), as the Python module does.
#include <memory>
#include <optional>

#include "engine/api/param_binding.hpp"
#include "engine/api/registry.hpp"
#include "stages/io/common/array_conditions.hpp"
#include "stages/io/common/array_layout.hpp"
#include "stages/io/common/finite_samples.hpp"
#include "stages/io/memory/host_array.hpp"

namespace pacflow::stages {

class MemorySource final : public Source {
 public:
  StreamInfo open(const std::stop_token& stop) override;
  void read(std::int64_t first, std::int64_t count, float* dst) override;

  // The element `array`, whose sources read `array`.
  static ElementInfo info(std::shared_ptr<const HostArray> array);
  static void declare(ParamBinder<MemorySource>& p);
  void configured();

 private:
  // The names channel_names= gives, checked against the array's channels; empty when not given.
  std::vector<std::string> channel_names(std::int64_t channels) const;
  void read_raw(std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples, float* dst);

  std::shared_ptr<const HostArray> array_;
  double fs_ = 0;
  std::string layout_given_;
  std::optional<Duration> pad_;
  std::optional<std::vector<std::string>> channel_names_;  // unset: unnamed
  bool checksum_ = true;  // the array's sha256 in the report
  ConditionLabels conditions_, condition_names_;  // each epoch's condition, their order
  ArrayLayout layout_;
  std::unique_ptr<HostArrayValues> values_;
  NanPolicy nan_policy_ = NanPolicy::Reject;
  SamplePolicy samples_;
};

}  // namespace pacflow::stages
