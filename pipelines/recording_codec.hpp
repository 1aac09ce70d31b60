#pragma once
// One recording's results as a batch: how a dataset's ranks hand their recordings to rank 0 (the rank
// link carries batches, engine/api/rank_link.hpp) and how its checkpoint keeps them
// (pipelines/dataset_checkpoint.hpp). A float32 tensor per result array, named as the array, and one
// uint8 tensor of the typed rest: each array's axis names and doc, the coordinates and the shared
// facts (SharedFacts), written field by field (engine/api/byte_wire.hpp).
#include <cstdint>

#include "engine/api/batch.hpp"
#include "stages/io/common/result_arrays.hpp"

namespace pacflow {

// Recording `index`'s results as a batch of one series.
Batch encode_recording(std::int64_t index, const stages::ResultArrays& results);
// The results encode_recording put into `batch`. Throws std::runtime_error when it is not such a
// batch (another format, cut short, an array's tensor missing or of another shape).
stages::ResultArrays decode_recording(const Batch& batch);

}  // namespace pacflow
