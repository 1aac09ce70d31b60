#include "engine/run/batch_wire.hpp"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "engine/api/byte_wire.hpp"

namespace pacflow::detail {

namespace {

constexpr std::uint32_t kMagic = 0x50414342;  // "PACB"

}  // namespace

std::vector<std::byte> encode_batch(const Batch& batch) {
  ByteWriter w;
  w.put(kMagic);
  w.put(batch.index);
  w.put(batch.first_series);
  w.put(batch.series_count);
  w.put(static_cast<std::uint32_t>(batch.tensors.size()));
  for (const auto& [name, tensor] : batch.tensors) {
    if (!tensor.on_host()) throw std::logic_error("encode_batch: tensor \"" + name + "\" is not on the host");
    w.text(name);
    w.put(static_cast<std::uint8_t>(tensor.dtype()));
    w.put(static_cast<std::uint32_t>(tensor.rank()));
    for (std::int64_t d : tensor.shape()) w.put(d);
    w.bytes(tensor.raw(), tensor.bytes());
  }
  return w.take();
}

Batch decode_batch(const std::byte* bytes, std::size_t size) {
  ByteReader r(bytes, size, "batch bytes");
  if (r.get<std::uint32_t>() != kMagic) throw std::runtime_error("not an encoded batch");
  Batch batch;
  batch.index = r.get<std::int64_t>();
  batch.first_series = r.get<std::int64_t>();
  batch.series_count = r.get<std::int64_t>();
  const auto count = r.get<std::uint32_t>();
  for (std::uint32_t t = 0; t < count; ++t) {
    std::string name = r.text();
    const auto dtype = static_cast<DType>(r.get<std::uint8_t>());
    if (dtype > DType::UInt8) throw std::runtime_error("batch bytes: unknown dtype");
    const auto rank = r.get<std::uint32_t>();
    if (rank > 16) throw std::runtime_error("batch bytes: tensor rank out of range");
    Shape shape(rank);
    for (auto& d : shape)
      if ((d = r.get<std::int64_t>()) < 0) throw std::runtime_error("batch bytes: negative dimension");
    if (static_cast<double>(element_count(shape)) * static_cast<double>(dtype_size(dtype)) >
        static_cast<double>(r.remaining()))
      throw std::runtime_error("batch bytes cut short");
    Tensor tensor(shape, dtype);
    std::memcpy(tensor.raw(), r.take(tensor.bytes()), tensor.bytes());
    batch.tensors.emplace(std::move(name), std::move(tensor));
  }
  if (!r.done()) throw std::runtime_error("batch bytes: trailing bytes");
  return batch;
}

}  // namespace pacflow::detail
