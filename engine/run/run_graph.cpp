#include "engine/run/run_graph.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stop_token>


namespace pacflow::detail {

namespace flow = oneapi::tbb::flow;

namespace {

// A sequencer's key: batches leave it in index order. A rank's own batches are every size-th: its
// sequencers count them 0, 1, 2, …
auto own_position(RunGraph::Share share) {
  return [share](const BatchPtr& batch) { return static_cast<std::size_t>((batch->index - share.rank) / share.size); };
}

}  // namespace

RunGraph::Share RunGraph::share_of(const RunOptions& options) {
  if (!options.ranks) return {};
  return {options.ranks->rank(), options.ranks->size(), options.ranks->computes()};
}

RunGraph::RunGraph(const RunSetup& setup, std::function<void(Batch&)> on_batch)
    : setup_(setup),
      share_(share_of(setup.options)),
      deliver_(std::move(on_batch)),
      reader_(graph_, [this](oneapi::tbb::flow_control& control) { return read(control); }),
      limiter_(graph_, setup.segments.front().slots),
      give_back_token_(setup.segments.size()) {
  flow::make_edge(reader_, limiter_);
  connect_next_ = [this](Receiver& next) { flow::make_edge(limiter_, next); };
  give_back_token_[0] = [this](Batch&) { limiter_.decrementer().try_put(flow::continue_msg{}); };
  std::size_t segment = 0;
  for (std::size_t i = 0; i < setup_.built.stages.size();) {
    if (setup_.built.stages[i].ring_before) add_ring(++segment);
    const std::optional<std::size_t> group = group_containing(setup_.built.branches, i);
    if (!group) {
      add_stage(i++);
    } else {  // i is its first stage: groups are entered only from their start
      const BranchGroup& branches = setup_.built.branches[*group];
      add_branches(branches);
      i = branches.end;
    }
  }
  in_order_ = std::make_unique<flow::sequencer_node<BatchPtr>>(graph_, own_position(share_));
  connect_next_(*in_order_);
  delivery_ = std::make_unique<flow::function_node<BatchPtr, flow::continue_msg>>(
      graph_, flow::serial, [this](BatchPtr batch) {
        deliver(std::move(batch));
        return flow::continue_msg{};
      });
  flow::make_edge(*in_order_, *delivery_);
}

BatchPtr RunGraph::read(oneapi::tbb::flow_control& control) {
  const Segment& first = setup_.segments.front();
  const BuiltPipeline& built = setup_.built;
  if (!share_.computes || next_batch_ >= first.batch_count || setup_.options.stop.stop_requested()) {
    control.stop();
    return {};
  }
  auto batch = std::make_shared<Batch>();
  batch->index = next_batch_;
  next_batch_ += share_.size;
  batch->first_series = setup_.first_series + batch->index * first.batch_series;
  batch->series_count = std::min(first.batch_series, built.stream.series_count() - batch->first_series);
  const Clock::time_point start = Clock::now();
  guarded("source", built.source_name, batch->index, [&] {
    Tensor& signal = batch->emplace(built.stream.tensor, {built.stream.series_length}, DType::Float32);
    built.source->read(batch->first_series, batch->series_count, signal.values<float>().data());
  });
  ElementReporter(setup_.observer, ElementKind::Source, 0, built.source_name).worked("cpu", *batch, start);
  return batch;
}

void RunGraph::add_ring(std::size_t k) {
  using RingNode = flow::multifunction_node<BatchPtr, std::tuple<BatchPtr>>;
  Ring& ring = *setup_.rings[k];
  RingEdge& edge = *ring_edges_.emplace_back(
      std::make_unique<RingEdge>(ring, setup_.first_series, setup_.built.stream.series_count(), share_.rank,
                                 share_.size));
  // The node copies upstream batches in index order.
  auto in_order = std::make_unique<flow::sequencer_node<BatchPtr>>(graph_, own_position(share_));
  connect_next_(*in_order);
  auto node = std::make_unique<RingNode>(
      graph_, flow::serial,
      [this, &ring, &edge, k, label = "ring " + ring.name()](BatchPtr upstream, RingNode::output_ports_type& out) {
        const Clock::time_point start = Clock::now();
        const std::int64_t index = upstream ? upstream->index : -1;
        RingEdge::Step step;
        guarded("ring", ring.name(), index, [&] { step = edge.feed(std::move(upstream)); });
        if (index >= 0)
          setup_.observer.on_span({"copy", label, "cpu", index, 0, Span::kThisThread, start, Clock::now()});
        for (const auto& done : step.consumed) give_back_token_[k - 1](*done);
        for (auto& batch : step.ready) std::get<0>(out).try_put(std::move(batch));
      });
  flow::make_edge(*in_order, *node);
  give_back_token_[k] = [&ring_node = *node](Batch& batch) {
    batch.slot->give_back();
    ring_node.try_put(BatchPtr{});  // a slot came free: the node may go on copying
  };
  connect_next_ = [n = node.get()](Receiver& next) { flow::make_edge(flow::output_port<0>(*n), next); };
  nodes_.push_back(std::move(in_order));
  nodes_.push_back(std::move(node));
}

StageNode RunGraph::make_stage_node(std::size_t i, const BuiltStage* next) {
  const BuiltStage& stage = setup_.built.stages[i];
  const ElementReporter reporter(setup_.observer, ElementKind::Stage, i, stage.name);
  return setup_.devices.of(stage).make_node(graph_, stage, next, reporter);
}

void RunGraph::add_stage(std::size_t i) {
  const std::vector<BuiltStage>& stages = setup_.built.stages;
  StageNode made = make_stage_node(i, i + 1 < stages.size() ? &stages[i + 1] : nullptr);
  connect_next_(*made.input);
  connect_next_ = std::move(made.connect_output);
  nodes_.push_back(std::move(made.node));
}

void RunGraph::add_branches(const BranchGroup& group) {
  using ForkNode = flow::function_node<BatchPtr, flow::continue_msg>;
  using JoinNode = flow::multifunction_node<BatchPtr, std::tuple<BatchPtr>>;
  const std::vector<BuiltStage>& stages = setup_.built.stages;
  const BuiltStage* after = group.end < stages.size() ? &stages[group.end] : nullptr;
  std::vector<std::string> drops;
  for (std::size_t m = group.first; m < group.end; ++m)
    drops.insert(drops.end(), stages[m].drop_after.begin(), stages[m].drop_after.end());
  BranchJoin& join = *branch_joins_.emplace_back(std::make_unique<BranchJoin>(group.end - group.first, drops));
  auto join_node = std::make_unique<JoinNode>(
      graph_, flow::unlimited, [&join](BatchPtr branch, JoinNode::output_ports_type& out) {
        if (BatchPtr whole = join.join(std::move(branch))) std::get<0>(out).try_put(std::move(whole));
      });
  std::vector<Receiver*> branch_inputs;
  for (std::size_t m = group.first; m < group.end; ++m) {
    StageNode made = make_stage_node(m, after);
    branch_inputs.push_back(made.input);
    made.connect_output(*join_node);
    nodes_.push_back(std::move(made.node));
  }
  auto fork_node = std::make_unique<ForkNode>(graph_, flow::unlimited, [&join, branch_inputs](BatchPtr batch) {
    std::vector<BatchPtr> forks = join.fork(std::move(batch));
    for (std::size_t b = 0; b < forks.size(); ++b) branch_inputs[b]->try_put(std::move(forks[b]));
    return flow::continue_msg{};
  });
  connect_next_(*fork_node);
  connect_next_ = [n = join_node.get()](Receiver& next) { flow::make_edge(flow::output_port<0>(*n), next); };
  nodes_.push_back(std::move(fork_node));
  nodes_.push_back(std::move(join_node));
}

void RunGraph::deliver(BatchPtr batch) {
  deliver_(*batch);
  setup_.observer.on_delivered(*batch);
  ++delivered_;
  give_back_token_.back()(*batch);
}

void RunGraph::run() {
  // A stop request cancels the graph (unregistered before the graph dies: it is a local).
  const std::stop_callback cancel_on_stop(setup_.options.stop, [this] { graph_.cancel(); });
  reader_.activate();
  graph_.wait_for_all();
}

}  // namespace pacflow::detail
