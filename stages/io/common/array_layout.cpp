#include "stages/io/common/array_layout.hpp"

#include <fmt/format.h>

#include "engine/api/errors.hpp"

namespace pacflow::stages {

namespace {

constexpr std::string_view kAxes = "ECST";  // pacflow's order

}  // namespace

ArrayLayout ArrayLayout::parse(const std::string& spec) {
  ArrayLayout layout;
  for (const char axis : spec) {
    if (kAxes.find(axis) == std::string_view::npos)
      throw ParamError("layout", fmt::format("\"{}\": '{}' is not an axis; use E (epochs), C (channels), S (segments), "
                                             "T (time)",
                                             spec, axis));
    if (layout.axes_.find(axis) != std::string::npos)
      throw ParamError("layout", fmt::format("\"{}\" names axis {} twice", spec, axis));
    layout.axes_ += axis;
  }
  if (layout.axes_.find('T') == std::string::npos)
    throw ParamError("layout", fmt::format("\"{}\" has no time axis T", spec));
  return layout;
}

ArrayLayout ArrayLayout::default_for(std::size_t rank) {
  static constexpr std::array<const char*, 4> kDefaults = {"T", "CT", "ECT", "ECST"};
  if (rank < 1 || rank > kDefaults.size()) throw std::logic_error("ArrayLayout::default_for: rank 1 to 4");
  return parse(kDefaults[rank - 1]);
}

void ArrayLayout::bind(const Shape& file_shape, const std::string& where) {
  if (file_shape.size() != axes_.size())
    throw ParamError("layout", fmt::format("{}: the array has shape {} ({} axes), layout={} names {}", where,
                                           shape_string(file_shape), file_shape.size(), axes_, axes_.size()));
  std::int64_t stride = 1;
  for (std::size_t k = axes_.size(); k-- > 0;) {
    const auto axis = kAxes.find(axes_[k]);
    sizes_[axis] = file_shape[k];
    strides_[axis] = stride;
    stride *= file_shape[k];
  }
  if (length() < 2 || epochs() * channels() * segments() < 1)
    throw InputError(fmt::format("{}: array of shape {} holds no series of at least 2 samples (layout {})", where,
                                 shape_string(file_shape), axes_));
}

Shape ArrayLayout::leading() const {
  Shape dims{epochs(), channels()};
  if (axes_.find('S') != std::string::npos) dims.push_back(segments());
  return dims;
}

std::vector<std::string> ArrayLayout::leading_names() const {
  std::vector<std::string> names{"epochs", "channels"};
  if (axes_.find('S') != std::string::npos) names.emplace_back("segments");
  return names;
}

bool ArrayLayout::in_stream_order() const {
  // Axes of size 1 do not move anything; the others must come in pacflow's order, T last.
  std::string order;
  for (const char axis : axes_)
    if (axis == 'T' || sizes_[kAxes.find(axis)] > 1) order += axis;
  std::size_t at = 0;
  for (const char axis : order) {
    const auto next = kAxes.find(axis, at);
    if (next == std::string_view::npos) return false;
    at = next + 1;
  }
  return order.back() == 'T';
}

std::int64_t ArrayLayout::series_start(std::int64_t k) const {
  const std::int64_t s = k % segments(), row = k / segments();
  const std::int64_t c = row % channels(), e = row / channels();
  return e * stride(Axis::E) + c * stride(Axis::C) + s * stride(Axis::S);
}

void ArrayLayout::read(NpyValues& values, std::int64_t first, std::int64_t count, std::int64_t offset,
                       std::int64_t samples, float* dst, bool release) const {
  const std::int64_t length = this->length();
  if (in_stream_order()) {
    if (offset == 0 && samples == length) {
      values.read(first * length, count * length, dst, release);
      return;
    }
    for (std::int64_t s = 0; s < count; ++s)  // a piece of each series
      values.read((first + s) * length + offset, samples, dst + s * samples, release);
    return;
  }
  if (time_last()) {  // each series contiguous, but not where pacflow's order puts it
    for (std::int64_t s = 0; s < count; ++s)
      values.read(series_start(first + s) + offset, samples, dst + s * samples, release);
    return;
  }
  // Time is not the last axis: gather. Consecutive series run along the innermost of pacflow's
  // axes that has more than one entry (segments, else channels, else epochs); a run of n of them
  // is read one time sample at a time, n values apart by that axis' stride.
  const Axis run_axis = segments() > 1 ? Axis::S : channels() > 1 ? Axis::C : Axis::E;
  const std::int64_t run_size = size(run_axis), run_stride = stride(run_axis), time_stride = stride(Axis::T);
  const std::int64_t inner = run_axis == Axis::S ? 1 : run_axis == Axis::C ? segments() : channels() * segments();
  std::vector<float> row;
  for (std::int64_t s = 0; s < count;) {
    const std::int64_t k = first + s;
    const std::int64_t n = std::min(count - s, run_size - (k / inner) % run_size);
    const std::int64_t start = series_start(k);
    row.resize(static_cast<std::size_t>(n));
    float* out = dst + s * samples;
    for (std::int64_t t = 0; t < samples; ++t) {
      const std::int64_t at = start + (offset + t) * time_stride;
      if (run_stride == 1) {
        values.read(at, n, row.data(), false);
      } else {
        for (std::int64_t j = 0; j < n; ++j) values.read(at + j * run_stride, 1, &row[static_cast<std::size_t>(j)], false);
      }
      for (std::int64_t j = 0; j < n; ++j) out[j * samples + t] = row[static_cast<std::size_t>(j)];
    }
    s += n;
  }
}

}  // namespace pacflow::stages
