#pragma once
// Internal to the executor: each device kind's part of one run, with its node factory. The run
// graph asks the part of a stage's device kind for the stage's node and never looks at the kind
// again: cpu (the CPU devices' arenas, engine/run/stage_nodes.hpp), sim (the modelled devices'
// clocks, ditto) and the GPU backend's (GpuRun, from the plugin).
#include <functional>
#include <map>
#include <memory>
#include <oneapi/tbb/flow_graph.h>
#include <stop_token>

#include "engine/api/pipeline.hpp"
#include "engine/devices/gpu_backend.hpp"
#include "engine/plan/built_pipeline.hpp"
#include "engine/run/element_reporter.hpp"

namespace pacflow::detail {

// A stage's node, whatever made it: where batches go in, and how its output is connected (make_edge
// needs the node's concrete type: through a plain sender<> an async_node's successors would never
// see its gateway's output).
struct StageNode {
  template <typename Node>
  explicit StageNode(std::unique_ptr<Node> made)
      : input(made.get()),
        connect_output([n = made.get()](oneapi::tbb::flow::receiver<BatchPtr>& next) {
          oneapi::tbb::flow::make_edge(*n, next);
        }),
        node(std::move(made)) {}

  oneapi::tbb::flow::receiver<BatchPtr>* input;
  std::function<void(oneapi::tbb::flow::receiver<BatchPtr>&)> connect_output;
  std::unique_ptr<oneapi::tbb::flow::graph_node> node;
};

class DeviceRun {
 public:
  virtual ~DeviceRun() = default;
  // The node of `stage`, placed on this kind's devices; `next` is the stage after it, if any.
  virtual StageNode make_node(oneapi::tbb::flow::graph& graph, const BuiltStage& stage, const BuiltStage* next,
                              const ElementReporter& reporter) = 0;
};

class CpuRun;

// The part of each device kind the run's stages are placed on.
class DeviceRuns {
 public:
  DeviceRuns(const std::vector<BuiltStage>& stages, const RunOptions& options, GpuRun* gpus);
  ~DeviceRuns();
  DeviceRuns(const DeviceRuns&) = delete;
  DeviceRuns& operator=(const DeviceRuns&) = delete;

  DeviceRun& of(const BuiltStage& stage) const;
  int threads_per_cpu_device() const;

 private:
  std::map<DeviceRef::Kind, std::unique_ptr<DeviceRun>> runs_;
  const CpuRun* cpu_ = nullptr;
};

}  // namespace pacflow::detail
