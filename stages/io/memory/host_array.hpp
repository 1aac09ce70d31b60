#pragma once
// An array the caller holds in memory (a NumPy array handed over by the Python module), read in
// place by the `array` source (memory_source.hpp): never copied whole, only batch by batch into the
// pipeline's float32 tensors, converted from its dtype as each batch is read.
#include <cstddef>
#include <memory>
#include <string>

#include "engine/api/tensor.hpp"
#include "engine/io/npy.hpp"

namespace pacflow::stages {

struct HostArray {
  const std::byte* data = nullptr;  // C order, host byte order
  DType dtype = DType::Float32;     // float32, float64, int16 or int32
  Shape shape;
  std::shared_ptr<const void> owner;  // keeps `data` alive while a pipeline may read it
  std::string name = "the array";     // names it in messages and in result.json
};

// A HostArray's values through the interface the npy readers share, so the array source lays them
// out (ArrayLayout) exactly as the npy source lays out a file.
class HostArrayValues final : public NpyValues {
 public:
  // Throws InputError when the dtype is not one the npy readers convert.
  explicit HostArrayValues(std::shared_ptr<const HostArray> array);
  const NpyHeader& header() const override { return header_; }
  void read(std::int64_t first, std::int64_t count, float* dst, bool release) override;

 private:
  std::shared_ptr<const HostArray> array_;
  NpyHeader header_;
};

}  // namespace pacflow::stages
