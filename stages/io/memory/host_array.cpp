#include "stages/io/memory/host_array.hpp"

#include <fmt/format.h>

#include "engine/api/errors.hpp"

namespace pacflow::stages {

HostArrayValues::HostArrayValues(std::shared_ptr<const HostArray> array) : array_(std::move(array)) {
  if (!array_) throw std::logic_error("HostArrayValues: no array");
  const DType d = array_->dtype;
  if (d != DType::Float32 && d != DType::Float64 && d != DType::Int16 && d != DType::Int32)
    throw InputError(fmt::format("{}: dtype {} is not supported; give float32, float64, int16 or int32", array_->name,
                                 dtype_name(d)));
  header_.dtype = d;
  header_.shape = array_->shape;
  if (element_count(header_.shape) > 0 && array_->data == nullptr)
    throw std::logic_error("HostArrayValues: values without data");
}

void HostArrayValues::read(std::int64_t first, std::int64_t count, float* dst, bool /*release*/) {
  const std::size_t width = dtype_size(header_.dtype);
  npy_values_to_float(header_, array_->data + static_cast<std::size_t>(first) * width, static_cast<std::size_t>(count),
                      dst);
}

}  // namespace pacflow::stages
