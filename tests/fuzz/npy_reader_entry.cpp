#include <algorithm>
#include <vector>

#include "engine/errors.hpp"
#include "engine/npy.hpp"
#include "tests/fuzz/entry_points.hpp"
#include "tests/fuzz/scratch_file.hpp"

namespace pacflow::fuzz {

Outcome npy_reader(Input data) {
  const ScratchFile file(data, ".npy");
  try {
    const NpyRowReader reader(file.path());
    const Shape& shape = reader.header().shape;
    // Rows of the last axis, as the npy source reads them: the first few, and the last.
    const std::int64_t row = shape.empty() ? 1 : shape.back();
    const std::int64_t rows = row > 0 ? element_count(shape) / row : 0;
    if (row > 0 && row <= (1 << 16)) {
      std::vector<float> values(static_cast<std::size_t>(2 * row));
      reader.read_as_float(0, std::min<std::int64_t>(rows, 2), row, values.data());
      if (rows > 0) reader.read_as_float(rows - 1, 1, row, values.data(), /*release_read=*/true);
    }
    // The whole-array reader allocates what the header declares, which read_npy_header has matched
    // against the file's size: bounded by the input.
    const Tensor whole = read_npy(file.path());
    return {whole.size() == element_count(shape), ""};
  } catch (const InputError& e) {
    return {false, e.what()};
  }
}

}  // namespace pacflow::fuzz
