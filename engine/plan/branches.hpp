#pragma once
// Internal: which stages run as parallel branches of the same batch (a DAG inside the chain).
#include <cstddef>
#include <optional>
#include <vector>

namespace pacflow::detail {

struct BuiltStage;

// Consecutive stages [first, end) that run side by side on each batch: none reads or writes what
// another of them writes, so each sees the same inputs whatever the order. More than one stage.
struct BranchGroup {
  std::size_t first = 0, end = 0;
  bool contains(std::size_t stage) const { return stage >= first && stage < end; }
};

// Groups each run of consecutive stages, in chain order, whose inputs are all written before the
// first of them (derived from the declared reads and writes). A stage joins the group before it
// when it depends on none of its members, no ring comes before it (a ring starts a segment), and it
// and every member run on the CPU (cpu or cpu:k: a branch works on views of the batch's host
// tensors; a stage on a GPU or a modelled device stays a link of the chain).
std::vector<BranchGroup> plan_branches(const std::vector<BuiltStage>& stages);

// The index in `groups` of the group `stage` belongs to, if any.
std::optional<std::size_t> group_containing(const std::vector<BranchGroup>& groups, std::size_t stage);

}  // namespace pacflow::detail
