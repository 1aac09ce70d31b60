#pragma once
// Internal: the host memory a run will need at most, from its plan, before anything is allocated
// (RunOptions::max_memory refuses a run above a limit; the report shows the estimate).
//
// Batches are the memory: every batch alive holds the tensors alive at the stage it is in, and the
// segments bound how many are alive (the in-flight limit before the first ring, the ring's capacity
// after it). So the estimate is, per segment, (batches alive) × (series per batch) × (the most
// tensor bytes per series alive at any of its stages), plus the ring slots allocated up front, plus
// the batch the source has ready behind the in-flight limit, plus each stage's working memory
// (Stage::host_workspace_bytes) for the threads that may run it at once. It is an upper
// bound: a tensor a batch borrows from a ring slot is counted in the slot and in the batch.
#include <string>
#include <vector>

#include "engine/api/estimates.hpp"
#include "engine/api/memory_budget.hpp"
#include "engine/plan/built_pipeline.hpp"

namespace pacflow::detail {

MemoryEstimate estimate_host_memory(const BuiltPipeline& built, const std::vector<Segment>& segments, int threads);

// Throws InputError, with the estimate's terms, when it exceeds `limit` (an amount or a share of the
// machine's memory; when not given, the machine's memory).
void refuse_above(const MemoryBudget& limit, const MemoryEstimate& estimate);

// The machine's physical memory in bytes (for budgets given as a share of it).
std::size_t physical_memory_bytes();

}  // namespace pacflow::detail
