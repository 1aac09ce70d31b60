#include "engine/devices/cuda/stage_context.hpp"

namespace pacflow::cuda {

Tensor& StageContext::emplace(Batch& batch, const std::string& name, const Shape& per_series, DType dtype) const {
  Shape shape{batch.series_count};
  shape.insert(shape.end(), per_series.begin(), per_series.end());
  const auto bytes = static_cast<std::size_t>(element_count(shape)) * dtype_size(dtype);
  Tensor tensor(std::move(shape), dtype, memory_->allocate(bytes, stream_), device_name());
  return batch.tensors.insert_or_assign(name, std::move(tensor)).first->second;
}

}  // namespace pacflow::cuda
