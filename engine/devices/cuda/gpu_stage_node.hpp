#pragma once
// Internal to the executor: the flow-graph node of a stage placed on GPUs.
#include <memory>
#include <oneapi/tbb/flow_graph.h>

#include "engine/plan/built_pipeline.hpp"
#include "engine/devices/cuda/runtime.hpp"
#include "engine/devices/gpu_backend.hpp"
#include "engine/run/element_reporter.hpp"
#include "engine/run/run_support.hpp"

namespace pacflow::detail {

// An async_node whose body queues one batch's work for `stage` (its device_kernel) on the GPU chosen for it and
// returns without waiting: the batch goes on at once when `stays` (the next stage runs on GPUs and
// the stream orders their work), else when the event after its download completes. Kernel times go
// to `reporter` and the runtime's report, and so do its spans; a GPU failure seen by the watcher
// goes to `failure` and cancels the graph.
std::unique_ptr<GpuNode> make_gpu_stage_node(oneapi::tbb::flow::graph& graph, const BuiltStage& stage, bool stays,
                                             const ElementReporter& reporter, cuda::Runtime& gpus,
                                             FirstFailure& failure);

}  // namespace pacflow::detail
