#pragma once
// The pipeline as a Graphviz DOT digraph (pipeline_cli graph): one node per element with its kind,
// device and replica count, one edge per tensor from its producer to each reader, and the bound on
// batches in flight between them.
#include <string>

#include "engine/params.hpp"

namespace pacflow {

// `plan` is Pipeline::validate()'s report (elements with their reads, writes and devices).
std::string pipeline_dot(const json& plan, int max_in_flight);

}  // namespace pacflow
