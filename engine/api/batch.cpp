#include "engine/api/batch.hpp"

#include <stdexcept>

namespace pacflow {

Batch::Batch() = default;
Batch::~Batch() = default;
Batch::Batch(Batch&&) noexcept = default;
Batch& Batch::operator=(Batch&&) noexcept = default;

Tensor& Batch::emplace(const std::string& name, const Shape& per_series, DType dtype) {
  return emplace_rows(name, series_count, per_series, dtype);
}

Tensor& Batch::emplace_rows(const std::string& name, std::int64_t rows, const Shape& per_row, DType dtype) {
  Shape shape{rows};
  shape.insert(shape.end(), per_row.begin(), per_row.end());
  auto [it, inserted] = tensors.insert_or_assign(name, Tensor(std::move(shape), dtype));
  return it->second;
}

Tensor& Batch::at(const std::string& name) {
  const auto it = tensors.find(name);
  if (it == tensors.end()) throw std::logic_error("batch has no tensor \"" + name + "\"");
  return it->second;
}

const Tensor& Batch::at(const std::string& name) const {
  const auto it = tensors.find(name);
  if (it == tensors.end()) throw std::logic_error("batch has no tensor \"" + name + "\"");
  return it->second;
}

}  // namespace pacflow
