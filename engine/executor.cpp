// Pipeline::run: the chain executed on a oneTBB flow graph.
//
//   input_node ─► limiter_node(in flight) ─► stages of segment 0 ─┐
//        ▲                  ▲                                      ▼
//        │                  └── token back ◄── sequencer ─► ring node ─► stages of segment 1 ─► … ─► sequencer ─► sinks
//        └─ reads in order                                     ▲                                               │
//                                                              └──────── slot back (one per delivered batch) ──┘
//
// Batches are tokens: the first segment admits at most `max_in_flight` at once, and every later
// segment as many as its ring has slots (engine/ring.hpp). A ring sits where a stage runs on other
// devices than the stage before it (or where the user set one): its node takes the upstream batches
// in index order, copies the tensors that cross into free slots (re-cut to the segment's batch
// size) and gives each upstream batch's token back once it is copied. When no slot is free the
// node waits for one to come back, which holds the upstream batches and, through their tokens,
// the segment before: back-pressure, without blocking a thread. Stages run different batches
// concurrently; the last sequencer restores index order for the sinks.
//
// Placement: a stage on `cpu` runs in the graph's own arena, any number of batches at once. A stage
// on CPU devices (cpu:k, one or more replicas) is a node whose concurrency is its replica count; a
// batch arriving there leases a free replica from a lock-free queue (there always is one: the node
// admits no more batches than replicas) and runs inside that device's task_arena. A stage on sim
// devices is an async_node released by the model's clock. A stage on GPUs is an async_node too: its
// body queues the batch's copies and kernels on the batch's stream and returns; the batch goes on at
// once when the next stage runs on the same GPU (the stream orders their work), or, when it leaves
// the GPU, once the event after its download completes (engine/cuda/runtime.hpp).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <fmt/format.h>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>

#include <map>
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/info.h>

#include "engine/built_pipeline.hpp"
#include "engine/checkpoint.hpp"
#include "engine/excluded_rows.hpp"
#include "engine/json_text.hpp"
#include "engine/memory_estimate.hpp"
#include "engine/output_folders.hpp"
#include "engine/output_set.hpp"
#include "engine/placement.hpp"
#include "engine/provenance.hpp"
#include "engine/run_files.hpp"
#include "engine/run_support.hpp"
#include "engine/gpu_plugin.hpp"
#include "engine/ring_edge.hpp"
#include "engine/stage_nodes.hpp"

namespace pacflow {

namespace {

using detail::BatchPtr;
using detail::Clock;
using detail::guarded;
using detail::StageTiming;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// What must not change between an interrupted run and its resumption: the engine's version, the input
// (its checksum too), every element with its resolved parameters and placement, and the tensors.
json checkpoint_plan(const json& description) {
  json plan;
  for (const char* key : {"version", "input", "pipeline", "tensors"}) plan[key] = description.at(key);
  return plan;
}

// A stage's run summary, with the stage's name for errors and for its checkpoint folder.
struct NamedSummary {
  std::string stage;
  std::unique_ptr<RunSummary> summary;
};

std::vector<NamedSummary> make_summaries(const detail::BuiltPipeline& built) {
  std::vector<NamedSummary> summaries;
  for (const auto& stage : built.stages)
    if (auto summary = stage.stage->make_summary()) summaries.push_back({stage.name, std::move(summary)});
  return summaries;
}

// The checkpoint's participants are the sinks, then the run summaries (each with a folder of its own).
std::unique_ptr<Checkpoint> open_checkpoint(const detail::BuiltPipeline& built, const json& description,
                                            const std::vector<NamedSummary>& summaries,
                                            const std::filesystem::path& dir) {
  if (dir.empty()) return nullptr;
  std::vector<std::string> names;
  for (const auto& sink : built.sinks) {
    if (const std::string why = sink.sink->why_not_checkpointable(); !why.empty())
      throw InputError(fmt::format("--checkpoint: sink \"{}\" cannot keep its partial output in a checkpoint: {}",
                                   sink.name, why));
    names.push_back(sink.name);
  }
  for (const auto& s : summaries) names.push_back(s.stage + "-summary");
  auto checkpoint = std::make_unique<Checkpoint>(dir, checkpoint_plan(description), built.stream.series_count(), names);
  if (checkpoint->series_done() % built.batch_multiple != 0 && checkpoint->series_done() != built.stream.series_count())
    throw InputError(fmt::format("--checkpoint {}: {} series recorded, not a whole number of groups of {}; remove it "
                                 "to start afresh",
                                 dir.string(), checkpoint->series_done(), built.batch_multiple));
  return checkpoint;
}

}  // namespace

json Pipeline::run(const RunOptions& options) const {
  const std::filesystem::path trace_file = options.trace ? options.trace_file : "";
  // The output folders are ours until the run ends, from before its input is opened (a second run
  // into one is refused at once): created, locked against other runs, and cleared of what killed
  // runs left there (settling a half-done commit first).
  OutputFolders folders;
  folders.hold(detail::named_output_folders(*registry_, elements_, trace_file));
  detail::BuiltPipeline built = detail::build(*registry_, elements_, placement(), options.stop);
  const std::vector<std::filesystem::path> output_paths =
      detail::check_outputs(built, *registry_, elements_, trace_file, input_files(), options.checkpoint);
  folders.hold_folders_of(output_paths);
  if (options.stop.stop_requested()) throw RunCancelled(0);
  const std::int64_t series = built.stream.series_count();
  const std::int64_t length = built.stream.series_length;
  const int threads = std::max(1, oneapi::tbb::info::default_concurrency());

  std::vector<detail::Segment> segments =
      detail::plan_segments(built, options.batch_size, options.max_in_flight, threads);
  detail::refuse_above(options.max_memory, detail::estimate_host_memory(built, segments, threads));
  // What grows with the input is made only now that the estimate, which counts it, is within the limit.
  for (auto& stage : built.stages) guarded("stage", stage.name, -1, [&] { stage.stage->prepare(); });

  // A checkpointed run that resumes carries only the series after those already recorded.
  json description = detail::describe(built, options.batch_size, options.max_in_flight);
  for (const auto& note : folders.notes()) description["warnings"].push_back(note);
  description["files"] = files_json(detail::run_files(built, trace_file));
  const std::vector<StaleFiles> stale = find_stale_files(output_paths);  // the folders are held: they stay so
  for (const auto& s : stale) description["warnings"].push_back(stale_warning(s, options.clean));
  std::vector<NamedSummary> summaries = make_summaries(built);
  const std::unique_ptr<Checkpoint> checkpoint = open_checkpoint(built, description, summaries, options.checkpoint);
  const std::int64_t first_series = checkpoint ? checkpoint->series_done() : 0;
  for (auto& seg : segments) seg.batch_count = seg.batches(series - first_series);
  if (checkpoint) {
    const std::size_t sinks = built.sinks.size();
    std::size_t s = 0;
    try {
      for (; s < sinks; ++s)
        built.sinks[s].sink->resume(checkpoint->sink_dir(s), checkpoint->sink_state(s), first_series);
      for (; s < sinks + summaries.size(); ++s)
        summaries[s - sinks].summary->resume(checkpoint->sink_dir(s), checkpoint->sink_state(s), first_series);
    } catch (const json::exception& e) {
      for (auto& sink : built.sinks) sink.sink->abort();
      throw InputError(fmt::format("--checkpoint {}: the record of {} is damaged ({}); remove the checkpoint "
                                   "to start afresh",
                                   checkpoint->dir().string(),
                                   s < sinks ? fmt::format("sink \"{}\"", built.sinks[s].name)
                                             : fmt::format("stage \"{}\"'s summary", summaries[s - sinks].stage),
                                   e.what()));
    } catch (...) {
      for (auto& sink : built.sinks) sink.sink->abort();
      throw;
    }
  }

  const detail::Segment& first = segments.front();
  const std::int64_t batch_size = first.batch_series;
  const std::int64_t batch_count = first.batch_count;
  const int in_flight = static_cast<int>(first.slots);
  double bytes_per_series = 0;
  for (const auto& t : built.tensors) bytes_per_series += t["bytes_per_series"].get<double>();

  // A run on GPUs takes its page-locked memory, and its stages' nodes, from the GPU backend.
  const bool on_gpus = std::any_of(built.stages.begin(), built.stages.end(), [](const auto& s) { return s.on_gpu(); });
  GpuBackend* const gpu_backend = on_gpus ? gpu_plugin().backend.get() : nullptr;
  if (on_gpus && !gpu_backend) throw std::logic_error("a stage was placed on a GPU without the GPU backend");

  // The rings, allocated (and page-locked) up front; they outlive every batch, hence the graph.
  std::vector<std::unique_ptr<Ring>> rings(segments.size());
  std::vector<std::unique_ptr<RingEdge>> ring_edges;  // the producer ends, holding batches awaiting a slot
  for (std::size_t k = 1; k < segments.size(); ++k) {
    const detail::Segment& seg = segments[k];
    const std::string from = seg.first_stage ? built.stages[seg.first_stage - 1].name : built.source_name;
    const std::string name = fmt::format("{} → {}", from, built.stages[seg.first_stage].name);
    std::vector<SlotTensor> layout = built.stages[seg.first_stage].crossing;
    const std::size_t slot_bytes = lay_out_slot(layout, seg.batch_series);
    try {
      rings[k] = std::make_unique<Ring>(name, seg.slots, seg.batch_series, std::move(layout), seg.overflow,
                                        gpu_backend ? &gpu_backend->page_locked() : nullptr);
    } catch (const std::bad_alloc&) {
      throw InputError(fmt::format("ring {}: {} slots of {} series ({:.1f} MiB each) do not fit in memory; lower "
                                   "ring= or batch= on stage \"{}\"",
                                   name, seg.slots, seg.batch_series, static_cast<double>(slot_bytes) / 0x1p20,
                                   built.stages[seg.first_stage].name));
    }
  }

  std::vector<StageTiming> timings(built.stages.size());
  StageTiming source_timing;
  std::vector<StageTiming> sink_timings(built.sinks.size());
  detail::FirstFailure outside_failure;  // declared before the GPU runtime, whose watcher reports into it
  // The run's GPUs; destroyed after the graph (their watcher may still see the last events).
  const std::unique_ptr<GpuRun> gpus =
      gpu_backend ? gpu_backend->start(detail::gpu_budgets(built), outside_failure) : nullptr;
  const Clock::time_point run_start = Clock::now();

  namespace flow = oneapi::tbb::flow;
  flow::graph graph;
  std::int64_t next_batch = 0;  // touched only by the serial input_node body

  flow::input_node<BatchPtr> reader(graph, [&](oneapi::tbb::flow_control& control) -> BatchPtr {
    if (next_batch >= batch_count || options.stop.stop_requested()) {
      control.stop();
      return {};
    }
    auto batch = std::make_shared<Batch>();
    batch->index = next_batch++;
    batch->first_series = first_series + batch->index * batch_size;
    batch->series_count = std::min(batch_size, series - batch->first_series);
    const Clock::time_point start = Clock::now();
    guarded("source", built.source_name, batch->index, [&] {
      Tensor& signal = batch->emplace(built.stream.tensor, {length}, DType::Float32);
      built.source->read(batch->first_series, batch->series_count, signal.values<float>().data());
    });
    source_timing.add(start);
    if (options.trace)
      options.trace->record("source", built.source_name, "cpu", batch->index, batch->series_count, start, Clock::now());
    return batch;
  });

  flow::limiter_node<BatchPtr> limiter(graph, static_cast<std::size_t>(in_flight));
  flow::make_edge(reader, limiter);

  detail::CpuDevices cpu_devices(built.stages);
  SimDevices sim_devices(options.sim_model);
  std::vector<std::unique_ptr<flow::graph_node>> stage_nodes;
  DueTimeQueue due;  // declared after the nodes' dependencies, destroyed (joined) before them
  // Connects the previous node to the next one. make_edge needs the concrete node type: through a
  // plain sender<> reference an async_node's successors would never see its gateway's output.
  std::function<void(flow::receiver<BatchPtr>&)> connect_next = [&limiter](flow::receiver<BatchPtr>& next) {
    flow::make_edge(limiter, next);
  };
  // How a batch leaving segment k gives its token back: to the limiter for the first segment, its
  // slot to the ring (and news of it to the ring's node, which may be waiting) for the others.
  std::vector<std::function<void(Batch&)>> give_back_token(segments.size());
  give_back_token[0] = [&limiter](Batch&) { limiter.decrementer().try_put(flow::continue_msg{}); };
  using RingNode = flow::multifunction_node<BatchPtr, std::tuple<BatchPtr>>;
  std::vector<std::unique_ptr<flow::graph_node>> ring_nodes;
  std::size_t segment = 0;
  const auto add_ring = [&](std::size_t k) {
    Ring& ring = *rings[k];
    auto& edge = *ring_edges.emplace_back(std::make_unique<RingEdge>(ring, first_series, series));
    // The node copies upstream batches in index order.
    auto in_order = std::make_unique<flow::sequencer_node<BatchPtr>>(
        graph, [](const BatchPtr& batch) { return static_cast<std::size_t>(batch->index); });
    connect_next(*in_order);
    auto node = std::make_unique<RingNode>(
        graph, flow::serial, [&ring, &edge, &options, &give_back_token, k](BatchPtr upstream, RingNode::output_ports_type& out) {
          const Clock::time_point start = Clock::now();
          const std::int64_t index = upstream ? upstream->index : -1;
          RingEdge::Step step;
          guarded("ring", ring.name(), index, [&] { step = edge.feed(std::move(upstream)); });
          if (options.trace && index >= 0)
            options.trace->record("copy", "ring " + ring.name(), "cpu", index, 0, start, Clock::now());
          for (const auto& done : step.consumed) give_back_token[k - 1](*done);
          for (auto& batch : step.ready) std::get<0>(out).try_put(std::move(batch));
        });
    flow::make_edge(*in_order, *node);
    give_back_token[k] = [&ring_node = *node](Batch& batch) {
      batch.slot->give_back();
      ring_node.try_put(BatchPtr{});  // a slot came free: the node may go on copying
    };
    connect_next = [n = node.get()](flow::receiver<BatchPtr>& next) { flow::make_edge(flow::output_port<0>(*n), next); };
    ring_nodes.push_back(std::move(in_order));
    ring_nodes.push_back(std::move(node));
  };
  // Appends a stage's node (of its concrete type: make_edge needs it) after the previous one.
  const auto add_node = [&](auto node) {
    connect_next(*node);
    connect_next = [n = node.get()](flow::receiver<BatchPtr>& next) { flow::make_edge(*n, next); };
    stage_nodes.push_back(std::move(node));
  };
  for (std::size_t i = 0; i < built.stages.size(); ++i) {
    auto& stage = built.stages[i];
    auto& timing = timings[i];
    if (stage.ring_before) add_ring(++segment);
    if (stage.on_gpu()) {
      // The batch stays on its GPU when the next stage also runs on GPUs (no ring between them).
      const bool stays = i + 1 < built.stages.size() && built.stages[i + 1].on_gpu() && !built.stages[i + 1].ring_before;
      add_node(gpus->make_node(graph, stage, stays, timing, options));
      continue;
    }
    if (stage.simulated()) {
      const bool next_on_sim = i + 1 < built.stages.size() && built.stages[i + 1].simulated();
      add_node(detail::make_sim_stage_node(graph, stage, next_on_sim, timing, options, sim_devices, due));
      continue;
    }
    add_node(detail::make_cpu_stage_node(graph, stage, timing, options, cpu_devices));
  }

  flow::sequencer_node<BatchPtr> sequencer(
      graph, [](const BatchPtr& batch) { return static_cast<std::size_t>(batch->index); });
  connect_next(sequencer);

  std::int64_t delivered = 0;  // touched only by the serial sink body
  const std::int64_t delivered_total = segments.back().batch_count;
  flow::function_node<BatchPtr, flow::continue_msg> deliver(
      graph, flow::serial, [&](BatchPtr batch) {
        if (!built.stream.excluded_series.empty())
          detail::mask_excluded_rows(*batch, built.masked, built.stream.excluded_series);
        for (auto& s : summaries) guarded("stage", s.stage, batch->index, [&] { s.summary->add(*batch); });
        for (std::size_t s = 0; s < built.sinks.size(); ++s) {
          const Clock::time_point start = Clock::now();
          guarded("sink", built.sinks[s].name, batch->index, [&] { built.sinks[s].sink->consume(*batch); });
          sink_timings[s].add(start);
          if (options.trace)
            options.trace->record("sink", built.sinks[s].name, "cpu", batch->index, batch->series_count, start,
                                  Clock::now());
        }
        if (checkpoint)
          guarded("checkpoint", checkpoint->dir().string(), batch->index, [&] {
            std::vector<json> states;
            for (auto& sink : built.sinks) states.push_back(sink.sink->checkpoint());
            for (auto& s : summaries) states.push_back(s.summary->checkpoint());
            checkpoint->record(batch->first_series + batch->series_count, std::move(states));
          });
        ++delivered;
        give_back_token.back()(*batch);
        if (options.on_progress) options.on_progress({delivered, delivered_total, seconds_since(run_start)});
        return flow::continue_msg{};
      });
  flow::make_edge(sequencer, deliver);

  // A stop request cancels the graph: no new task starts, and wait_for_all returns once the bodies
  // running now are done. (Declared after the graph, so it is unregistered before the graph dies.)
  const std::stop_callback cancel_on_stop(options.stop, [&graph] { graph.cancel(); });
  try {
    reader.activate();
    graph.wait_for_all();
    if (options.stop.stop_requested()) throw RunCancelled(delivered);
    outside_failure.rethrow_if_any();
    if (delivered != delivered_total)
      throw std::logic_error(fmt::format("engine delivered {} of {} batches", delivered, delivered_total));
    if (!summaries.empty()) {
      Batch summary;
      summary.index = batch_count;
      summary.series_count = series;
      for (auto& s : summaries) guarded("stage", s.stage, -1, [&] { s.summary->finish(summary); });
      for (auto& sink : built.sinks) guarded("sink", sink.name, -1, [&] { sink.sink->consume_summary(summary); });
    }
  } catch (...) {
    for (auto& sink : built.sinks) sink.sink->abort();
    // Whatever surfaced while the run was stopping (a stage's RunCancelled, a batch cut short), the
    // run ends because it was asked to.
    if (options.stop.stop_requested()) throw RunCancelled(delivered);
    throw;
  }
  const double compute_s = seconds_since(run_start);

  json report = std::move(description);
  json ring_report = json::array();
  for (const auto& ring : rings) {
    if (!ring) continue;
    ring_report.push_back({{"name", ring->name()},
                           {"capacity", ring->capacity()},
                           {"batch_series", ring->batch_series()},
                           {"slot_bytes", ring->slot_bytes()},
                           {"overflow", overflow_name(ring->overflow())},
                           {"memory", ring->memory_kind()},
                           {"slots_high_water", ring->high_water()},
                           {"producer_waits", ring->waits()},
                           {"grown_slots", ring->grown()}});
  }
  auto stage_report = [](const std::string& kind, const std::string& name, const StageTiming& t) {
    const double total = static_cast<double>(t.nanoseconds.load()) * 1e-9;
    const auto n = t.batches.load();
    json row{{"kind", kind}, {"name", name}, {"batches", n}, {"busy_s", total},
             {"mean_ms_per_batch", n ? 1e3 * total / static_cast<double>(n) : 0.0}};
    if (const auto gpu = t.gpu_nanoseconds.load()) row["gpu_kernel_s"] = static_cast<double>(gpu) * 1e-9;
    return row;
  };
  json per_stage = json::array();
  per_stage.push_back(stage_report("source", built.source_name, source_timing));
  for (std::size_t i = 0; i < built.stages.size(); ++i)
    per_stage.push_back(stage_report("stage", built.stages[i].name, timings[i]));
  for (std::size_t i = 0; i < built.sinks.size(); ++i)
    per_stage.push_back(stage_report("sink", built.sinks[i].name, sink_timings[i]));
  report["run"] = {{"series", series},
                   {"batch_size", batch_size},
                   {"batches", batch_count},
                   {"max_in_flight", in_flight},
                   {"tensor_bytes_per_series", bytes_per_series},
                   {"threads", threads},
                   {"threads_per_cpu_device", cpu_devices.threads_each()},
                   {"wall_s", compute_s},
                   {"rings", ring_report},
                   {"stages", per_stage}};
  if (checkpoint) report["run"]["checkpoint"] = {{"dir", checkpoint->dir().string()}, {"resumed_at_series", first_series}};
  if (!options.provenance.is_null()) {
    report["provenance"] = options.provenance;
    report["provenance"].update(gpu_provenance(gpu_backend != nullptr));
  }
  if (gpus) report["run"]["gpu"] = gpus->report();

  // Every sink (and the trace) writes all its files under temporary names; only when all are
  // complete are they moved into place, together. A failure anywhere leaves every earlier output as it
  // was, and the checkpoint (which the commit copies from) stays until the outputs are in place.
  {
    OutputSet outputs;
    try {
      if (options.stop.stop_requested()) throw RunCancelled(delivered);
      for (auto& sink : built.sinks)
        guarded("sink", sink.name, -1, [&] { sink.sink->finish(report, outputs); });
      if (options.trace && !options.trace_file.empty())
        outputs.add_content(options.trace_file, json_text(options.trace->to_json()) + "\n");
      outputs.commit(options.stop);
    } catch (...) {
      for (auto& sink : built.sinks) sink.sink->abort();
      if (options.stop.stop_requested()) throw RunCancelled(delivered);
      throw;
    }
  }
  folders.keep_created();
  // Only now that this run's outputs are in place: a failed run leaves the earlier files as they were.
  if (options.clean)
    for (auto& failure : remove_stale_files(stale)) report["warnings"].push_back(std::move(failure));
  if (checkpoint) checkpoint->discard();
  return report;
}

}  // namespace pacflow
