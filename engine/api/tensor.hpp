#pragma once
// Tensor: a shape, an element type, the device it lives on and its memory: an owning, 64-byte
// aligned buffer, memory borrowed from a ring slot (ring.hpp) and guarded by its generation, or
// memory held by a shared owner (a pooled page-locked host buffer, or GPU memory, which the host
// must not touch).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace pacflow {

enum class DType { Float32, Float64, Int16, Int32, UInt8 };

std::size_t dtype_size(DType dtype);
std::string dtype_name(DType dtype);

template <typename T>
constexpr DType dtype_of();
template <> constexpr DType dtype_of<float>() { return DType::Float32; }
template <> constexpr DType dtype_of<double>() { return DType::Float64; }
template <> constexpr DType dtype_of<std::int16_t>() { return DType::Int16; }
template <> constexpr DType dtype_of<std::int32_t>() { return DType::Int32; }
template <> constexpr DType dtype_of<std::uint8_t>() { return DType::UInt8; }

using Shape = std::vector<std::int64_t>;
std::int64_t element_count(const Shape& shape);
std::string shape_string(const Shape& shape);

// Host buffers (tensors, ring slots) start on, and are sized in, multiples of this many bytes: a
// cache line, and the widest SIMD load.
constexpr std::size_t kHostAlignment = 64;
constexpr std::size_t align_up(std::size_t bytes) { return (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment; }

// Host memory aligned for SIMD loads; freed on destruction.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t bytes);
  std::byte* data() { return data_.get(); }
  const std::byte* data() const { return data_.get(); }
  std::size_t size() const { return bytes_; }

 private:
  struct Free {
    // The length of a mapping of its own (engine/api/huge_pages.hpp); 0 (value-initialised): the heap's.
    std::size_t mapped;
    void operator()(std::byte* p) const noexcept;
  };
  std::unique_ptr<std::byte[], Free> data_;
  std::size_t bytes_ = 0;
};

// Memory a tensor borrows from a ring slot. It stays the tensor's only while the slot's generation
// is the one seen when it was lent; a later access is a use after reuse, and throws.
struct BorrowedMemory {
  std::byte* data = nullptr;
  std::size_t bytes = 0;
  const std::atomic<std::uint64_t>* generation = nullptr;
  std::uint64_t lent_at = 0;
};

// Memory owned elsewhere and kept alive by `owner` (its deleter gives the memory back).
struct SharedMemory {
  std::shared_ptr<void> owner;
  std::byte* data = nullptr;
  std::size_t bytes = 0;
  bool host = true;  // false: device memory, for kernels only
};

class Tensor {
 public:
  Tensor() = default;
  // Zero-initialised tensor on the host.
  Tensor(Shape shape, DType dtype, std::string device = "cpu");
  // A tensor over borrowed memory of at least its size (not cleared).
  Tensor(Shape shape, DType dtype, BorrowedMemory memory, std::string device = "cpu");
  // A tensor over shared memory of at least its size (not cleared).
  Tensor(Shape shape, DType dtype, SharedMemory memory, std::string device);

  const Shape& shape() const { return shape_; }
  std::int64_t dim(std::size_t i) const { return shape_.at(i); }
  std::size_t rank() const { return shape_.size(); }
  DType dtype() const { return dtype_; }
  const std::string& device() const { return device_; }
  std::int64_t size() const { return element_count(shape_); }
  std::size_t bytes() const { return static_cast<std::size_t>(size()) * dtype_size(dtype_); }
  std::byte* raw() { return memory(); }
  const std::byte* raw() const { return memory(); }
  bool borrowed() const { return borrowed_.data != nullptr; }
  // False for device memory: values() and raw() then throw; kernels use device_data().
  bool on_host() const { return !shared_.owner || shared_.host; }
  std::byte* device_data() const;
  // A second tensor over this one's memory (no copy), kept alive by `keeper` when this tensor owns
  // its buffer; borrowed memory stays guarded by its ring slot's generation.
  Tensor view(std::shared_ptr<void> keeper) const;
  // Where its memory starts, to tell a view from another tensor (no access check: not for reading).
  const std::byte* address() const {
    return shared_.owner ? shared_.data : borrowed_.data ? borrowed_.data : buffer_.data();
  }

  template <typename T>
  std::span<T> values() {
    check<T>();
    return {reinterpret_cast<T*>(memory()), static_cast<std::size_t>(size())};
  }
  template <typename T>
  std::span<const T> values() const {
    check<T>();
    return {reinterpret_cast<const T*>(memory()), static_cast<std::size_t>(size())};
  }

 private:
  template <typename T>
  void check() const {
    if (!on_host()) throw std::logic_error("tensor " + shape_string(shape_) + " on " + device_ + " read on the host");
    if (dtype_of<T>() != dtype_)
      throw std::logic_error("tensor holds " + dtype_name(dtype_) + ", read as " +
                             dtype_name(dtype_of<T>()));
  }

  std::byte* memory() const;

  Shape shape_;
  DType dtype_ = DType::Float32;
  std::string device_ = "cpu";
  AlignedBuffer buffer_;
  BorrowedMemory borrowed_;
  SharedMemory shared_;
};

}  // namespace pacflow
