#pragma once
// Internal to the executor: the flow-graph node of a stage on the CPU and on modelled (sim) devices.
// A stage on GPUs gets its node from the GPU backend (GpuRun::make_node, engine/devices/gpu_backend.hpp).
#include <memory>
#include <oneapi/tbb/flow_graph.h>
#include <stop_token>

#include "engine/plan/built_pipeline.hpp"
#include "engine/devices/placement.hpp"
#include "engine/run/element_reporter.hpp"
#include "engine/run/run_support.hpp"
#include "engine/devices/sim_device.hpp"

namespace pacflow::detail {

using CpuNode = oneapi::tbb::flow::function_node<BatchPtr, BatchPtr>;
using SimNode = oneapi::tbb::flow::async_node<BatchPtr, BatchPtr>;

// On plain `cpu`, any number of batches at once in the graph's own arena; on CPU devices (cpu:k, one
// or more replicas), one batch per replica, each run inside its replica's task_arena.
std::unique_ptr<CpuNode> make_cpu_stage_node(oneapi::tbb::flow::graph& graph, const BuiltStage& stage,
                                             const ElementReporter& reporter, std::stop_token stop,
                                             CpuDevices& devices);

// No arithmetic: zero-filled outputs, released by `due` when the model says the device is done
// (`next_on_sim`: the batch stays in the device's memory for the next stage).
std::unique_ptr<SimNode> make_sim_stage_node(oneapi::tbb::flow::graph& graph, const BuiltStage& stage,
                                             bool next_on_sim, const ElementReporter& reporter, SimDevices& devices,
                                             DueTimeQueue& due);

}  // namespace pacflow::detail
