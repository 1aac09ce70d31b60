#pragma once
// Internal to the sim backend: the flow-graph node of a stage on modelled (sim) devices.
#include <memory>
#include <set>
#include <string>
#include <oneapi/tbb/flow_graph.h>

#include "engine/devices/sim/sim_device.hpp"
#include "engine/plan/built_pipeline.hpp"
#include "engine/run/element_reporter.hpp"
#include "engine/run/run_support.hpp"

namespace pacflow::detail {

using SimNode = oneapi::tbb::flow::async_node<BatchPtr, BatchPtr>;

// No arithmetic: zero-filled outputs (but for `unread`, which no one will look at), released by `due`
// when the model says the device is done (`next_on_sim`: the batch stays in the device's memory for
// the next stage).
std::unique_ptr<SimNode> make_sim_stage_node(oneapi::tbb::flow::graph& graph, const BuiltStage& stage,
                                             std::set<std::string> unread, bool next_on_sim,
                                             const ElementReporter& reporter, SimDevices& devices, DueTimeQueue& due);

}  // namespace pacflow::detail
