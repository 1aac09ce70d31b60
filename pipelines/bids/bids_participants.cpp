#include "pipelines/bids/bids_participants.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "stages/io/common/tsv_table.hpp"

namespace pacflow::bids {

std::vector<std::string> participant_warnings(const std::filesystem::path& root,
                                              const std::vector<std::string>& folders,
                                              const std::set<std::string>& recorded, const std::string& what,
                                              const std::function<bool(const std::string&)>& selected) {
  const std::filesystem::path file = root / "participants.tsv";
  if (!std::filesystem::exists(file)) return {};
  const stages::TsvTable table(file, "a BIDS participants file");
  const std::size_t id = table.required_column("participant_id", "BIDS participants files name each subject (sub-01)");
  std::set<std::string> listed;
  for (const stages::TsvRow& row : table.rows()) {
    std::string label = row.cells[id];
    if (label.starts_with("sub-")) label.erase(0, 4);
    listed.insert(label);
  }
  std::vector<std::string> unlisted, missing;
  for (const std::string& s : folders)
    if (selected(s) && !listed.contains(s)) unlisted.push_back("sub-" + s);
  for (const std::string& s : listed)
    if (selected(s) && !recorded.contains(s)) missing.push_back("sub-" + s);
  std::vector<std::string> warnings;
  if (!unlisted.empty())
    warnings.push_back(fmt::format("{}: {} not listed, though {} a folder in {}", file.string(),
                                   fmt::join(unlisted, ", "), unlisted.size() == 1 ? "it has" : "each has",
                                   root.string()));
  if (!missing.empty())
    warnings.push_back(fmt::format("{} lists {}, with no {}: {} left out of the dataset", file.string(),
                                   fmt::join(missing, ", "), what, missing.size() == 1 ? "it is" : "they are"));
  return warnings;
}

}  // namespace pacflow::bids
