#include <algorithm>
#include <vector>

#include "engine/api/errors.hpp"
#include "stages/io/edf/edf_file.hpp"
#include "stages/io/edf/edf_header_check.hpp"
#include "tests/fuzz/entry_points.hpp"
#include "tests/fuzz/scratch_file.hpp"

namespace pacflow::fuzz {

Outcome edf_reader(Input data) {
  const ScratchFile file(data, ".edf");  // EDFlib tells EDF from BDF by the header, not the name
  stages::diagnose_edf_header(file.path().string());  // what EdfFile consults when EDFlib refuses
  try {
    const stages::EdfFile edf(file.path().string(), /*read_annotations=*/true);
    std::vector<double> samples(16);
    for (std::size_t s = 0; s < edf.signals().size(); ++s) {
      const auto& signal = edf.signals()[s];
      const auto n = static_cast<int>(std::min<std::int64_t>(signal.samples, 16));
      if (n > 0) edf.read_physical(static_cast<int>(s), signal.samples - n, n, samples.data());
    }
    return {true, ""};
  } catch (const InputError& e) {
    return {false, e.what()};
  }
}

}  // namespace pacflow::fuzz
