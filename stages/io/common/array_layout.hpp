#pragma once
// What the axes of a stored array are: `layout=` of the npy source, the file's axes in order, each
// one of E (epochs), C (channels), S (segments of a series) and T (time), e.g. ECT (MNE's epochs),
// ET (TensorPAC's (n_epochs, n_times)), TC (time first). Series come out in pacflow's order,
// [epochs][channels][segments], whatever the file's order; samples of a series in time order.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/api/tensor.hpp"
#include "engine/io/npy.hpp"

namespace pacflow::stages {

class ArrayLayout {
 public:
  // Parses `spec`; throws ParamError("layout", …) naming a letter that is not an axis, an axis
  // named twice, or a missing T.
  static ArrayLayout parse(const std::string& spec);
  // The layout an array of `rank` axes is read with when none is given: T, CT, ECT, ECST.
  static ArrayLayout default_for(std::size_t rank);

  // Takes the sizes of the file's axes. Throws ParamError("layout", …) when the ranks differ, and
  // InputError when the array holds no series of at least 2 samples. `where` names the array.
  void bind(const Shape& file_shape, const std::string& where);

  const std::string& axes() const { return axes_; }
  // [E][C], or [E][C][S] when the layout has segments.
  Shape leading() const;
  std::vector<std::string> leading_names() const;
  std::int64_t epochs() const { return size(Axis::E); }
  std::int64_t channels() const { return size(Axis::C); }
  std::int64_t segments() const { return size(Axis::S); }
  std::int64_t length() const { return size(Axis::T); }
  // Series k occupies values [k·T, (k+1)·T) of the file: its axes are in pacflow's order.
  bool in_stream_order() const;
  // Time is the file's last axis: each series lies contiguous in the file.
  bool time_last() const { return stride(Axis::T) == 1; }

  // Samples [offset, offset + samples) of series [first, first + count) into dst
  // ([count][samples]). `release` lets the reader drop what it read (a forward pass).
  void read(NpyValues& values, std::int64_t first, std::int64_t count, std::int64_t offset, std::int64_t samples,
            float* dst, bool release) const;

 private:
  enum class Axis { E, C, S, T };
  std::int64_t size(Axis a) const { return sizes_[static_cast<std::size_t>(a)]; }
  std::int64_t stride(Axis a) const { return strides_[static_cast<std::size_t>(a)]; }
  // Index of series k's first sample in the file's values.
  std::int64_t series_start(std::int64_t k) const;

  std::string axes_;
  std::array<std::int64_t, 4> sizes_{1, 1, 1, 1};    // E, C, S, T; 1 for an axis the file lacks
  std::array<std::int64_t, 4> strides_{0, 0, 0, 0};  // in values
};

}  // namespace pacflow::stages
