#include <algorithm>
#include <vector>

#include "engine/api/errors.hpp"
#include "engine/io/npy.hpp"
#include "stages/io/npy/npz_archive.hpp"
#include "tests/fuzz/entry_points.hpp"
#include "tests/fuzz/scratch_file.hpp"

namespace pacflow::fuzz {

namespace {

// Rows of the last axis, as the npy source reads them: the first few, and the last.
void read_some_rows(NpyValues& values) {
  const Shape& shape = values.header().shape;
  const std::int64_t row = shape.empty() ? 1 : shape.back();
  const std::int64_t rows = row > 0 ? element_count(shape) / row : 0;
  if (row <= 0 || row > (1 << 16)) return;
  std::vector<float> buffer(static_cast<std::size_t>(2 * row));
  values.read(0, std::min<std::int64_t>(rows, 2) * row, buffer.data(), false);
  if (rows > 0) values.read((rows - 1) * row, row, buffer.data(), /*release=*/true);
}

// An .npz archive: its first array (as key= would pick it), read as the source reads it.
Outcome npz_archive(const ScratchFile& file) {
  const auto keys = stages::npz_keys(file.path());
  if (keys.empty()) return {false, "no .npy member"};
  stages::NpzMember member = stages::open_npz_member(file.path(), keys.front());
  read_some_rows(*member.values);
  read_some_rows(*member.values);  // again from the start: a deflated member inflates again
  return {true, ""};
}

}  // namespace

Outcome npy_reader(Input data) {
  const ScratchFile file(data, ".npy");
  try {
    if (stages::is_zip_archive(file.path())) return npz_archive(file);
    NpyRowReader reader(file.path());
    read_some_rows(reader);
    // The whole-array reader allocates what the header declares, which read_npy_header has matched
    // against the file's size: bounded by the input.
    const Tensor whole = read_npy(file.path());
    return {whole.size() == element_count(reader.header().shape), ""};
  } catch (const InputError& e) {
    return {false, e.what()};
  }
}

}  // namespace pacflow::fuzz
