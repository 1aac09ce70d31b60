#pragma once
// The pipeline as a Graphviz DOT digraph (pipeline_cli graph): one node per element with its kind,
// device and replica count, one node per ring buffer with its capacity and batch size, one edge per
// tensor from its producer (or the ring it crosses) to each reader, and the bound on batches in
// flight before the first ring.
#include <string>

#include "engine/api/params.hpp"

namespace pacflow {

// `plan` is Pipeline::validate()'s report (elements with their reads, writes and devices, segments).
std::string pipeline_dot(const json& plan);

}  // namespace pacflow
