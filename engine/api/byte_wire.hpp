#pragma once
// Plain values as bytes, in the host's byte order (the processes that exchange them run one build on
// one kind of machine: MPI ranks, a dataset's checkpoint): what the batch codec (engine/run/
// batch_wire.hpp) and a dataset's recording codec (pipelines/recording_codec.hpp) are written with.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace pacflow {

class ByteWriter {
 public:
  template <class T>
    requires std::is_trivially_copyable_v<T>
  void put(const T& value) {
    bytes(&value, sizeof value);
  }
  void bytes(const void* data, std::size_t size) {
    const auto* p = static_cast<const std::byte*>(data);
    out_.insert(out_.end(), p, p + size);
  }
  // Its length (u32), then its bytes.
  void text(const std::string& value) {
    put(static_cast<std::uint32_t>(value.size()));
    bytes(value.data(), value.size());
  }
  // Their count (u32), then each as text().
  void texts(const std::vector<std::string>& values) {
    put(static_cast<std::uint32_t>(values.size()));
    for (const auto& v : values) text(v);
  }
  std::vector<std::byte> take() { return std::move(out_); }

 private:
  std::vector<std::byte> out_;
};

// Reads what a ByteWriter wrote; every read past the end throws std::runtime_error naming `what`.
class ByteReader {
 public:
  ByteReader(const std::byte* data, std::size_t size, std::string what = "bytes")
      : data_(data), size_(size), what_(std::move(what)) {}
  template <class T>
    requires std::is_trivially_copyable_v<T>
  T get() {
    T value;
    std::memcpy(&value, take(sizeof value), sizeof value);
    return value;
  }
  const std::byte* take(std::size_t n) {
    if (n > size_ - at_) throw std::runtime_error(what_ + " cut short");
    const std::byte* p = data_ + at_;
    at_ += n;
    return p;
  }
  std::string text() {
    const auto size = get<std::uint32_t>();
    const std::byte* p = take(size);
    return std::string(reinterpret_cast<const char*>(p), size);
  }
  std::vector<std::string> texts() {
    const auto count = get<std::uint32_t>();
    // Each takes at least its length: a count beyond what is left is damage, not a huge allocation.
    if (count > remaining() / sizeof(std::uint32_t)) throw std::runtime_error(what_ + " cut short");
    std::vector<std::string> out(count);
    for (auto& v : out) v = text();
    return out;
  }
  bool done() const { return at_ == size_; }
  std::size_t remaining() const { return size_ - at_; }

 private:
  const std::byte* data_;
  std::size_t size_;
  std::size_t at_ = 0;
  std::string what_;
};

}  // namespace pacflow
