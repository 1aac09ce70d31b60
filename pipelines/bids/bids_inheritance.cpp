#include "pipelines/bids/bids_inheritance.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <system_error>
#include <vector>

#include "engine/api/errors.hpp"

namespace pacflow::bids {

namespace {

namespace fs = std::filesystem;

// Every entity of `file` is the recording's, with the same label.
bool entities_within(const BidsName& file, const BidsName& recording) {
  return std::all_of(file.entities.begin(), file.entities.end(), [&](const auto& entity) {
    return recording.entity(entity.first) == entity.second;
  });
}

// The files of `dir` (not below it) that apply, in name order.
std::vector<fs::path> applicable_in(const fs::path& dir, const BidsName& recording, const std::string& suffix,
                                    const std::string& extension) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file(ec)) continue;
    const std::optional<BidsName> name = parse_entity_name(entry.path().filename().string());
    if (name && name->suffix == suffix && name->extension == extension && entities_within(*name, recording))
      found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

std::vector<fs::path> applicable_files(const fs::path& root, const fs::path& recording, const BidsName& name,
                                       const std::string& suffix, const std::string& extension) {
  const fs::path top = fs::absolute(root).lexically_normal();
  fs::path dir = fs::absolute(recording).lexically_normal().parent_path();
  const fs::path below = dir.lexically_relative(top);
  const bool under_root = !below.empty() && *below.begin() != "..";
  // From the recording's folder up to the root, never past it (a recording outside the root: its
  // own folder alone).
  std::vector<fs::path> levels;
  for (;;) {
    const std::vector<fs::path> found = applicable_in(dir, name, suffix, extension);
    if (found.size() > 1)
      throw InputError(fmt::format("{} and {} both apply to recording {} (BIDS' inheritance principle allows one "
                                   "_{}{} per folder); remove or rename one",
                                   found[0].string(), found[1].string(), name.stem, suffix, extension));
    if (found.size() == 1) levels.push_back(under_root ? root / found.front().lexically_relative(top) : found.front());
    if (!under_root || dir == top || dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  std::reverse(levels.begin(), levels.end());
  return levels;
}

std::optional<fs::path> applicable_file(const fs::path& root, const fs::path& recording, const BidsName& name,
                                        const std::string& suffix, const std::string& extension) {
  std::vector<fs::path> levels = applicable_files(root, recording, name, suffix, extension);
  if (levels.empty()) return std::nullopt;
  return levels.back();
}

}  // namespace pacflow::bids
