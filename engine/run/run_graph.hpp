#pragma once
// Internal to the executor: the oneTBB flow graph of one run, built from the plan.
//
//   input_node ─► limiter_node(in flight) ─► stages of segment 0 ─┐
//        ▲                  ▲                                      ▼
//        │                  └── token back ◄── sequencer ─► ring node ─► stages of segment 1 ─► … ─► sequencer ─► delivery
//        └─ reads in order                                     ▲                                                 │
//                                                              └──────── slot back (one per delivered batch) ────┘
//
// Batches are tokens: the first segment admits at most its `slots` at once, and every later
// segment as many as its ring has slots (engine/run/ring.hpp). A ring node takes the upstream batches
// in index order, copies the tensors that cross into free slots (re-cut to the segment's batch
// size) and gives each upstream batch's token back once it is copied. When no slot is free the
// node waits for one to come back, which holds the upstream batches and, through their tokens,
// the segment before: back-pressure, without blocking a thread. Stages run different batches
// concurrently; the last sequencer restores index order for the delivery.
//
// Stages of a branch group (engine/plan/branches.hpp) sit side by side between a fork and a join
// (engine/run/branch_join.hpp): each works on the same batch at once, then the batch goes on.
//
// Each stage's node comes from its device backend's part of the run (engine/run/device_runs.hpp).
#include <cstdint>
#include <functional>
#include <memory>
#include <oneapi/tbb/flow_graph.h>
#include <vector>

#include "engine/api/rank_link.hpp"
#include "engine/plan/built_pipeline.hpp"
#include "engine/run/branch_join.hpp"
#include "engine/run/device_runs.hpp"
#include "engine/run/ring_edge.hpp"
#include "engine/run/element_reporter.hpp"
#include "engine/run/run_support.hpp"

namespace pacflow::detail {

// What the graph reads, and where it reports, for one run; all of it outlives the graph.
struct RunSetup {
  const BuiltPipeline& built;
  const std::vector<Segment>& segments;
  const RunOptions& options;
  const std::vector<std::unique_ptr<Ring>>& rings;  // [k] for segment k > 0
  std::int64_t first_series = 0;                    // a resumed run starts past 0
  DeviceRuns& devices;                              // the backends' parts: stage nodes (outlive the graph,
                                                    // whose destructor waits for the work they still hold)
  RunObserver& observer;                            // hears every element's work and each delivery
};

class RunGraph {
 public:
  // `on_batch` receives every batch once, serially, in index order (summaries, sinks); then the
  // observer hears of it.
  RunGraph(const RunSetup& setup, std::function<void(Batch&)> on_batch);
  RunGraph(const RunGraph&) = delete;
  RunGraph& operator=(const RunGraph&) = delete;

  // The run's batches this process computes: indices rank, rank + size, …
  struct Share {
    int rank = 0;
    int size = 1;
    bool computes = true;  // false: a merge of shards, which receives every batch
  };
  static Share share_of(const RunOptions& options);

  // Runs until the last batch is delivered, a body throws, or a stop is requested (which cancels
  // the graph: no new task starts, and the bodies running finish). Rethrows the first body's
  // exception; returns normally otherwise, even when stopped (the caller checks).
  void run();
  std::int64_t delivered() const { return delivered_; }
  // The batches this process delivers: all of them, or with ranks (RunOptions::ranks) its share,
  // the indices rank, rank + size, … (its segments' batches are then the same size).
  std::int64_t batches() const {
    const std::int64_t all = setup_.segments.back().batch_count;
    return share_.computes && all > share_.rank ? (all - share_.rank + share_.size - 1) / share_.size : 0;
  }

 private:
  using Receiver = oneapi::tbb::flow::receiver<BatchPtr>;
  BatchPtr read(oneapi::tbb::flow_control& control);
  void add_ring(std::size_t segment);
  void add_stage(std::size_t index);
  void add_branches(const BranchGroup& group);
  StageNode make_stage_node(std::size_t index, const BuiltStage* next);
  void deliver(BatchPtr batch);

  RunSetup setup_;
  Share share_;  // of the run's batches: indices rank, rank + size, …
  std::function<void(Batch&)> deliver_;
  std::vector<std::unique_ptr<RingEdge>> ring_edges_;
  std::vector<std::unique_ptr<BranchJoin>> branch_joins_;  // the batches waiting for their branches  // the rings' producer ends, holding batches awaiting a slot
  oneapi::tbb::flow::graph graph_;
  std::int64_t next_batch_ = share_.rank;  // touched only by the serial input_node body
  std::int64_t delivered_ = 0;   // touched only by the serial delivery body
  oneapi::tbb::flow::input_node<BatchPtr> reader_;
  oneapi::tbb::flow::limiter_node<BatchPtr> limiter_;
  std::vector<std::unique_ptr<oneapi::tbb::flow::graph_node>> nodes_;
  // Connects the last node added to the next one. make_edge needs the concrete node type: through a
  // plain sender<> reference an async_node's successors would never see its gateway's output.
  std::function<void(Receiver&)> connect_next_;
  // How a batch leaving segment k gives its token back: to the limiter for the first segment, its
  // slot to the ring (and news of it to the ring's node, which may be waiting) for the others.
  std::vector<std::function<void(Batch&)>> give_back_token_;
  std::unique_ptr<oneapi::tbb::flow::sequencer_node<BatchPtr>> in_order_;
  std::unique_ptr<oneapi::tbb::flow::function_node<BatchPtr, oneapi::tbb::flow::continue_msg>> delivery_;
};

}  // namespace pacflow::detail
