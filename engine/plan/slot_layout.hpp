#pragma once
// How the tensors that cross a ring are laid out in its slots, and what a producer does when every
// slot is taken: decided when the pipeline is planned (engine/plan/build.cpp), used by the rings
// of a run (engine/run/ring.hpp) and by the memory estimate.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/api/tensor.hpp"

namespace pacflow {

// What a producer does when every slot is taken.
enum class Overflow {
  Block,  // wait for a slot (the default): back-pressure
  Fail,   // stop the run with an error naming the ring (for inputs that must never wait)
  Grow,   // borrow an extra, ordinary (unlocked) slot for this batch and count it
};
Overflow parse_overflow(const std::string& text);  // throws std::invalid_argument
std::string overflow_name(Overflow overflow);

// One tensor's place in every slot. A tensor has one row per series, or `rows_per_group` rows per
// `group` consecutive series (RowLayout, engine/api/stage.hpp); batches then hold whole groups.
struct SlotTensor {
  std::string name;
  Shape per_row;
  DType dtype = DType::Float32;
  std::size_t bytes_per_row = 0;
  std::size_t offset = 0;  // from the slot's start, for a full batch; 64-byte aligned
  std::int64_t group = 1;
  std::int64_t rows_per_group = 1;
  // Rows of `series` consecutive series starting on a group boundary.
  std::int64_t rows(std::int64_t series) const { return series / group * rows_per_group; }
};

// Lays `tensors` out one after the other for `batch_series` series (64-byte aligned), filling
// their offsets; returns the slot size in bytes.
std::size_t lay_out_slot(std::vector<SlotTensor>& tensors, std::int64_t batch_series);

}  // namespace pacflow
