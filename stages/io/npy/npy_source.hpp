#pragma once
// Source `npy`: a NumPy array [E][C][T], [C][T] or [T] (float32, float64, int16, int32, C order),
// or [E][C][S][T] with S segments per series (PAC per segment, as gPAC), memory-mapped and read
// batch by batch (only the pages of the batch are touched, and handed back after it), converted to
// float32. NaN and Inf samples, flat series: nan_policy (stages/io/common/finite_samples.hpp).
#include <optional>

#include "engine/npy.hpp"
#include "engine/registry.hpp"
#include "stages/io/common/finite_samples.hpp"

namespace pacflow::stages {

class NpySource final : public Source {
 public:
  explicit NpySource(const Params& params);
  StreamInfo open(const std::stop_token& stop) override;
  void read(std::int64_t first, std::int64_t count, float* dst) override;

  static ElementInfo info();

 private:
  // Samples [offset, offset + samples) of series [first, first + count), as the file holds them.
  void read_raw(std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples, float* dst) const;

  std::string path_;
  double fs_;
  std::optional<NpyRowReader> reader_;
  Shape leading_;
  std::int64_t length_ = 0;
  SamplePolicy samples_;
};

}  // namespace pacflow::stages
