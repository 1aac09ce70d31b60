#include "engine/plan/slot_layout.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace pacflow {

Overflow parse_overflow(const std::string& text) {
  if (text == "block") return Overflow::Block;
  if (text == "fail") return Overflow::Fail;
  if (text == "grow") return Overflow::Grow;
  throw std::invalid_argument(fmt::format("\"{}\" is not an overflow policy; use block, fail or grow", text));
}

std::string overflow_name(Overflow overflow) {
  switch (overflow) {
    case Overflow::Block: return "block";
    case Overflow::Fail: return "fail";
    case Overflow::Grow: return "grow";
  }
  return "?";
}

std::size_t lay_out_slot(std::vector<SlotTensor>& tensors, std::int64_t batch_series) {
  std::size_t offset = 0;
  for (auto& t : tensors) {
    t.offset = offset;
    offset += align_up(t.bytes_per_row * static_cast<std::size_t>(t.rows(batch_series)));
  }
  return offset;
}

}  // namespace pacflow
