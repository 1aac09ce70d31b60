#include "engine/api/tensor.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <oneapi/tbb/parallel_for.h>
#include <new>

#include "engine/api/huge_pages.hpp"

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

// Zeroes a new buffer from the heap (those of a huge page or more are mappings of their own, zero
// already). One of 1 MiB or more may be fresh pages, whose first touch (a fault and the kernel's
// clearing of each page) would otherwise run on the one thread that emplaces the tensor while the
// others wait: chunks of 256 KiB go to the pool's threads.
void zero_fill(std::byte* p, std::size_t bytes) {
  constexpr std::size_t kChunk = std::size_t{1} << 18;
  if (bytes < 4 * kChunk) {
    std::memset(p, 0, bytes);
    return;
  }
  oneapi::tbb::parallel_for(std::size_t{0}, (bytes + kChunk - 1) / kChunk, [&](std::size_t c) {
    std::memset(p + c * kChunk, 0, std::min(kChunk, bytes - c * kChunk));
  });
}

}  // namespace

void AlignedBuffer::Free::operator()(std::byte* p) const noexcept {
  if (mapped > 0)
    unmap_pages(p, mapped);
  else
    std::free(p);
}

AlignedBuffer::AlignedBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  if (bytes >= kHugePageThreshold) {
    // A mapping of its own is zero already: the pages are cleared once, by the kernel, where the
    // buffer is first written (a stage's threads), 2 MiB a fault where huge pages are offered.
    if (std::byte* p = map_huge_pages(bytes)) {
      data_ = std::unique_ptr<std::byte[], Free>(p, Free{mapped_length(bytes)});
      return;
    }
  }
  const std::size_t rounded = align_up(bytes);
  auto* p = static_cast<std::byte*>(std::aligned_alloc(kHostAlignment, rounded));
  if (!p) throw std::bad_alloc();
  zero_fill(p, rounded);
  data_.reset(p);
}

namespace {
void check_dimensions(const Shape& shape) {
  for (auto d : shape)
    if (d < 0) throw std::invalid_argument("negative tensor dimension in " + shape_string(shape));
}
}  // namespace

Tensor::Tensor(Shape shape, DType dtype, std::string device)
    : shape_(std::move(shape)),
      dtype_(dtype),
      device_(std::move(device)),
      buffer_(static_cast<std::size_t>(element_count(shape_)) * dtype_size(dtype)) {
  check_dimensions(shape_);
}

Tensor::Tensor(Shape shape, DType dtype, BorrowedMemory memory, std::string device)
    : shape_(std::move(shape)), dtype_(dtype), device_(std::move(device)), borrowed_(memory) {
  check_dimensions(shape_);
  if (!borrowed_.data || !borrowed_.generation || borrowed_.bytes < bytes())
    throw std::logic_error("borrowed memory of " + std::to_string(borrowed_.bytes) + " bytes for a tensor of " +
                           std::to_string(bytes()));
}

Tensor::Tensor(Shape shape, DType dtype, SharedMemory memory, std::string device)
    : shape_(std::move(shape)), dtype_(dtype), device_(std::move(device)), shared_(std::move(memory)) {
  check_dimensions(shape_);
  if (!shared_.owner || (!shared_.data && bytes() > 0) || shared_.bytes < bytes())
    throw std::logic_error("shared memory of " + std::to_string(shared_.bytes) + " bytes for a tensor of " +
                           std::to_string(bytes()));
}

std::byte* Tensor::device_data() const {
  if (on_host()) throw std::logic_error("tensor " + shape_string(shape_) + " on " + device_ + " has no device memory");
  return shared_.data;
}

Tensor Tensor::view(std::shared_ptr<void> keeper) const {
  if (shared_.owner) return Tensor(shape_, dtype_, shared_, device_);
  if (borrowed_.data) return Tensor(shape_, dtype_, borrowed_, device_);
  if (!keeper) throw std::logic_error("a view of an owning tensor needs an owner that keeps it alive");
  return Tensor(shape_, dtype_,
                SharedMemory{std::move(keeper), const_cast<std::byte*>(buffer_.data()), buffer_.size(), true}, device_);
}

std::byte* Tensor::memory() const {
  if (shared_.owner) {
    if (!shared_.host)
      throw std::logic_error("tensor " + shape_string(shape_) + " on " + device_ + " read on the host");
    return shared_.data;
  }
  if (!borrowed_.data) return const_cast<std::byte*>(buffer_.data());
  if (borrowed_.generation->load(std::memory_order_acquire) != borrowed_.lent_at)
    throw std::logic_error("tensor " + shape_string(shape_) + " used after its ring slot was given back");
  return borrowed_.data;
}

}  // namespace pacflow
