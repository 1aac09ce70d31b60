#pragma once
// A batch as bytes, for a rank to hand it to another (engine/api/rank_link.hpp): its index, series
// and every host tensor (name, dtype, shape, values), in one contiguous buffer.
#include <cstddef>
#include <vector>

#include "engine/api/batch.hpp"

namespace pacflow::detail {

std::vector<std::byte> encode_batch(const Batch& batch);
// Throws std::runtime_error for bytes that are not an encoded batch.
Batch decode_batch(const std::byte* bytes, std::size_t size);

}  // namespace pacflow::detail
