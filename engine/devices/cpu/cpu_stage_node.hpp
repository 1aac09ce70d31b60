#pragma once
// Internal to the cpu backend: the flow-graph node of a stage on the CPU.
#include <memory>
#include <oneapi/tbb/flow_graph.h>
#include <stop_token>

#include "engine/devices/cpu/cpu_devices.hpp"
#include "engine/plan/built_pipeline.hpp"
#include "engine/run/element_reporter.hpp"
#include "engine/run/run_support.hpp"

namespace pacflow::detail {

using CpuNode = oneapi::tbb::flow::function_node<BatchPtr, BatchPtr>;

// On plain `cpu`, any number of batches at once in the graph's own arena; on CPU devices (cpu:k, one
// or more replicas), one batch per replica, each run inside its replica's task_arena.
std::unique_ptr<CpuNode> make_cpu_stage_node(oneapi::tbb::flow::graph& graph, const BuiltStage& stage,
                                             const ElementReporter& reporter, std::stop_token stop,
                                             CpuDevices& devices);

}  // namespace pacflow::detail
