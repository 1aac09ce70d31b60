#pragma once
// A device memory budget as users write it: an amount (`40GB`, `512MiB`, `2e9` bytes) or a share of
// the device (`0.5`, `80%`).
#include <cstddef>
#include <string>

#include "engine/api/params.hpp"

namespace pacflow {

struct MemoryBudget {
  double bytes = 0;     // an amount, or
  double fraction = 0;  // a share of the device in (0, 1]
  bool given() const { return bytes > 0 || fraction > 0; }
  // The budget on a device of `device_bytes`, in bytes (never more than the device has).
  std::size_t on_device(std::size_t device_bytes) const;
  std::string text() const;
};

// Throws ParamError(param) on anything else, with the accepted forms. With `require_unit`, a bare
// number is refused too (for --max-memory, where "1" would mean 100% and "2" two bytes): amounts
// need a unit (8GB, 512MiB) and shares a percent sign (50%).
MemoryBudget parse_memory_budget(const std::string& param, const json& value, bool require_unit = false);

}  // namespace pacflow
