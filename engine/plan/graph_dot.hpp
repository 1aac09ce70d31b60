#pragma once
// The pipeline as a Graphviz DOT digraph (pipeline_cli graph, Pipeline::graph): one node per element
// with its kind, device and replica count, one node per ring buffer with its capacity and batch
// size, one edge per tensor from its producer (or the ring it crosses) to each reader, a dashed box
// around stages that run as parallel branches of each batch, and the bound on batches in flight
// before the first ring. Drawn from the plan itself, not from its JSON report.
#include <string>
#include <vector>

#include "engine/plan/built_pipeline.hpp"

namespace pacflow::detail {

std::string pipeline_dot(const BuiltPipeline& built, const std::vector<Segment>& segments);

}  // namespace pacflow::detail
