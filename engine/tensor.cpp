#include "engine/tensor.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

namespace pacflow {

std::size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::Float32: return 4;
    case DType::Float64: return 8;
    case DType::Int16: return 2;
    case DType::Int32: return 4;
    case DType::UInt8: return 1;
  }
  throw std::logic_error("unknown dtype");
}

std::string dtype_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
    case DType::Int16: return "int16";
    case DType::Int32: return "int32";
    case DType::UInt8: return "uint8";
  }
  throw std::logic_error("unknown dtype");
}

std::int64_t element_count(const Shape& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string shape_string(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

namespace {
constexpr std::size_t kAlignment = 64;
}

void AlignedBuffer::Free::operator()(std::byte* p) const noexcept { std::free(p); }

AlignedBuffer::AlignedBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  const std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  auto* p = static_cast<std::byte*>(std::aligned_alloc(kAlignment, rounded));
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, rounded);
  data_.reset(p);
}

Tensor::Tensor(Shape shape, DType dtype, std::string device)
    : shape_(std::move(shape)),
      dtype_(dtype),
      device_(std::move(device)),
      buffer_(static_cast<std::size_t>(element_count(shape_)) * dtype_size(dtype)) {
  for (auto d : shape_)
    if (d < 0) throw std::invalid_argument("negative tensor dimension in " + shape_string(shape_));
}

}  // namespace pacflow
