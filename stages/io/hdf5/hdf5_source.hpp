#pragma once
// Source `hdf5`: one numeric dataset of an HDF5 file whose axes are epochs (E), channels (C) and
// time (T) in any order named by `layout` (ECT, CTE, TCE, …; CT or TC for 2-D, T for 1-D). Each
// batch is read as hyperslabs of the series it holds, so the file is never read whole; HDF5
// converts any integer or float type, either byte order, to float32. The sample rate comes from
// `fs=` or from an attribute; channel names from an optional string attribute. NaN and Inf samples, flat series:
// nan_policy (stages/io/common/finite_samples.hpp).
#include <optional>
#include <vector>

#include "engine/api/param_binding.hpp"
#include "stages/io/common/array_conditions.hpp"
#include "stages/io/common/finite_samples.hpp"
#include "stages/io/hdf5/hdf5_handle.hpp"

namespace pacflow::stages {

class Hdf5Source final : public Source {
 public:
  StreamInfo open(const std::stop_token& stop) override;
  void read(std::int64_t first, std::int64_t count, float* dst) override;
  // The run of channels read in file order, for layouts with time before channels.
  double host_workspace_bytes(std::int64_t batch_series) const override;

  static ElementInfo info();
  static void declare(ParamBinder<Hdf5Source>& p);
  // Checks layout= (a permutation of E, C and T, or of some of them, with T) and sets the nan_policy.
  void configured();

 private:
  double sample_rate(hid_t dataset, json& description) const;
  std::vector<std::string> channel_labels(hid_t dataset) const;
  // Reads samples [offset, offset + samples) of series [first, first + count) into dst
  // ([count][samples]), as the file holds them.
  void read_series(std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples, float* dst);
  // Reads those samples of channels [channel, channel + n) of one epoch into dst ([n][samples]).
  void read_run(std::int64_t epoch, std::int64_t channel, std::int64_t n, std::int64_t offset, std::int64_t samples,
                float* dst);
  // The file's time axis comes before its channel axis: reads need a transpose.
  bool time_first() const;

  std::string path_;
  std::string dataset_path_;
  std::string layout_;  // the file's axes in order, e.g. "ECT"
  std::optional<double> fs_;
  std::optional<Duration> pad_;
  std::optional<Duration> epoch_step_;  // the epochs cut from one recording this far apart
  ConditionLabels conditions_, condition_names_;  // each epoch's condition, their order
  std::string fs_attribute_;
  std::string labels_attribute_;
  NanPolicy nan_policy_ = NanPolicy::Reject;
  hdf5::Id file_;
  hdf5::Id dataset_;
  std::int64_t channels_ = 1;
  std::int64_t length_ = 0;
  std::vector<float> scratch_;  // one run in file order, for layouts with time before channels
  SamplePolicy samples_;
};

}  // namespace pacflow::stages
