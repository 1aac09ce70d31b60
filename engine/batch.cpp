#include "engine/batch.hpp"

#include <stdexcept>

#include "engine/ring.hpp"

namespace pacflow {

Batch::Batch() = default;
Batch::~Batch() = default;
Batch::Batch(Batch&&) noexcept = default;
Batch& Batch::operator=(Batch&&) noexcept = default;

Tensor& Batch::emplace(const std::string& name, const Shape& per_series, DType dtype) {
  Shape shape{series_count};
  shape.insert(shape.end(), per_series.begin(), per_series.end());
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
