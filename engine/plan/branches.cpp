#include "engine/plan/branches.hpp"

#include <algorithm>
#include <string>

#include "engine/plan/built_pipeline.hpp"

namespace pacflow::detail {

namespace {

bool overlap(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::any_of(a.begin(), a.end(), [&](const std::string& name) {
    return std::find(b.begin(), b.end(), name) != b.end();
  });
}

// Neither reads nor writes what the other writes.
bool independent(const BuiltStage& a, const BuiltStage& b) {
  return !overlap(a.writes, b.reads) && !overlap(b.writes, a.reads) && !overlap(a.writes, b.writes);
}

bool on_host(const BuiltStage& stage) { return stage.residency() == Residency::Host; }

}  // namespace

std::vector<BranchGroup> plan_branches(const std::vector<BuiltStage>& stages) {
  std::vector<BranchGroup> groups;
  std::size_t first = 0;
  const auto close = [&](std::size_t end) {
    if (end - first > 1) groups.push_back({first, end});
    first = end;
  };
  for (std::size_t s = 1; s < stages.size(); ++s) {
    const bool joins = on_host(stages[s]) && on_host(stages[first]) && !stages[s].ring_before &&
                       std::all_of(stages.begin() + static_cast<std::ptrdiff_t>(first),
                                   stages.begin() + static_cast<std::ptrdiff_t>(s),
                                   [&](const BuiltStage& member) { return independent(member, stages[s]); });
    if (!joins) close(s);
  }
  if (!stages.empty()) close(stages.size());
  return groups;
}

std::optional<std::size_t> group_containing(const std::vector<BranchGroup>& groups, std::size_t stage) {
  for (std::size_t g = 0; g < groups.size(); ++g)
    if (groups[g].contains(stage)) return g;
  return std::nullopt;
}

}  // namespace pacflow::detail
