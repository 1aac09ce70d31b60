#include <algorithm>
#include <string_view>
#include <vector>

#include "engine/api/errors.hpp"
#include "stages/io/brainvision/brainvision_file.hpp"
#include "tests/fuzz/entry_points.hpp"
#include "tests/fuzz/scratch_file.hpp"

namespace pacflow::fuzz {

namespace {

// The part of `rest` before `separator` (all of it when absent); `rest` keeps what follows.
std::string_view take(std::string_view& rest, std::string_view separator) {
  const auto at = rest.find(separator);
  const std::string_view part = rest.substr(0, at);
  rest = at == std::string_view::npos ? std::string_view() : rest.substr(at + separator.size());
  return part;
}

}  // namespace

Outcome brainvision_reader(Input data) {
  std::string_view rest(reinterpret_cast<const char*>(data.data()), data.size());
  const ScratchFolder folder;
  const auto header = folder.write("rec.vhdr", take(rest, kBrainVisionSeparator));
  folder.write("rec.vmrk", take(rest, kBrainVisionSeparator));
  folder.write("rec.eeg", rest);
  try {
    const stages::BrainVisionFile file(header.string(), /*with_markers=*/true);
    std::vector<double> samples(16);
    for (std::size_t s = 0; s < file.signals().size(); ++s) {
      const auto& signal = file.signals()[s];
      const auto n = static_cast<int>(std::min<std::int64_t>(signal.samples, 16));
      if (n > 0) file.read_physical(static_cast<int>(s), signal.samples - n, n, samples.data());
    }
    return {true, ""};
  } catch (const InputError& e) {
    return {false, e.what()};
  }
}

}  // namespace pacflow::fuzz
