#pragma once
// Source `npy`: a NumPy array from an .npy file or a member of an .npz archive (float32, float64,
// int16, int32, C order), its axes named by `layout=` (E epochs, C channels, S segments, T time, in
// the file's order: ECT, ET, TC, ECST, …; by default T, CT, ECT or ECST by rank). A .npy file or a
// stored .npz member is memory-mapped and read batch by batch (only the pages of the batch are
// touched, and handed back after it when the file is in pacflow's order); a deflated member is
// inflated as it is read. Converted to float32. NaN and Inf samples, flat series: nan_policy
// (stages/io/common/finite_samples.hpp).
#include <memory>
#include <optional>

#include "engine/api/param_binding.hpp"
#include "engine/io/npy.hpp"
#include "stages/io/common/array_conditions.hpp"
#include "stages/io/common/array_layout.hpp"
#include "stages/io/common/finite_samples.hpp"

namespace pacflow::stages {

class NpySource final : public Source {
 public:
  StreamInfo open(const std::stop_token& stop) override;
  void read(std::int64_t first, std::int64_t count, float* dst) override;

  static ElementInfo info();
  static void declare(ParamBinder<NpySource>& p);
  // Reads layout= and sets the nan_policy.
  void configured();

 private:
  // Opens the .npy file or the .npz member; fills the description's file facts; returns where the
  // array is, for messages.
  std::string open_values(json& description);
  // Samples [offset, offset + samples) of series [first, first + count), as the file holds them.
  void read_raw(std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples, float* dst);

  std::string path_;
  double fs_ = 0;
  std::optional<std::string> key_;
  std::optional<std::string> layout_given_;  // layout= as written
  std::optional<ArrayLayout> given_layout_;
  std::optional<Duration> pad_;
  std::optional<Duration> epoch_step_;  // the epochs cut from one recording this far apart
  ConditionLabels conditions_, condition_names_;  // each epoch's condition, their order
  ArrayLayout layout_;
  std::unique_ptr<NpyValues> values_;
  NanPolicy nan_policy_ = NanPolicy::Reject;
  SamplePolicy samples_;
};

}  // namespace pacflow::stages
