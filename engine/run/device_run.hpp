#pragma once
// A device backend's part of one run (DeviceBackend::start, engine/placement/device_backend.hpp):
// the flow-graph node of each stage placed on its devices, and its lines of the run's report.
#include <functional>
#include <memory>
#include <stdexcept>

#include <oneapi/tbb/flow_graph.h>

#include "engine/api/json_text.hpp"
#include "engine/api/stage.hpp"
#include "engine/run/run_support.hpp"

namespace pacflow {

struct RunOptions;

namespace detail {
struct BuiltPipeline;
struct BuiltStage;
class ElementReporter;

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

// A backend's part of one run, from before its first batch until after the run's graph is destroyed.
class DeviceRun {
 public:
  virtual ~DeviceRun() = default;
  // The node of `stage`, placed on this backend's devices; `next` is the stage after it, if any.
  virtual StageNode make_node(oneapi::tbb::flow::graph& graph, const BuiltStage& stage, const BuiltStage* next,
                              const ElementReporter& reporter) = 0;
  // Fields this backend adds to result.json's `run` (its devices' threads, memory, kernel times).
  virtual json report() const { return json::object(); }
  // Backends whose stages do no arithmetic (sim): books the end of `stage`'s run summary on its
  // devices and says when the model has it done; the run waits until then and gives the summary's
  // tensors zero stand-ins. Other backends never get a modelled summary.
  virtual Clock::time_point book_summary_finish(const BuiltStage& /*stage*/, const SummaryWork& /*work*/) {
    throw std::logic_error("a run summary modelled on a backend that computes");
  }
};

// What a backend's part of a run is made from. A failure its devices report outside the graph's
// workers goes to `failure`, which the run rethrows.
struct RunStart {
  const BuiltPipeline& built;
  const RunOptions& options;
  FirstFailure& failure;
};

}  // namespace detail

}  // namespace pacflow
