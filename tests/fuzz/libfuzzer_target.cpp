// One libFuzzer program per entry point: PACFLOW_FUZZ_ENTRY names it (tests/fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pacflow::fuzz::PACFLOW_FUZZ_ENTRY(pacflow::fuzz::Input(data, size));
  return 0;
}
