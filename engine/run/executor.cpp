// Pipeline::run: plans the run (segments, memory, checkpoint), runs its flow graph
// (engine/run/run_graph.hpp), and reports and commits what the sinks wrote.
//
// Placement: each stage's node comes from the backend of its devices (its DeviceRun:
// engine/run/device_run.hpp).
// A stage on `cpu` runs in the graph's own arena, any number of batches at once. A stage on CPU
// devices (cpu:k, one or more replicas) is a node whose concurrency is its replica count; a batch
// arriving there leases a free replica and runs inside that device's task_arena. A stage on sim
// devices is an async_node released by the model's clock (engine/devices/sim/sim_stage_node.hpp).
// A stage on GPUs is an async_node from the GPU plugin: its body queues the batch's copies and
// kernels on the batch's stream and returns; the batch goes on at once when the next stage runs on
// the same GPU (the stream orders their work), or, when it leaves the GPU, once the event after its
// download completes (engine/devices/cuda/runtime.hpp).
#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <thread>

#include <map>
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/info.h>

#include "engine/api/json_text.hpp"
#include "engine/api/plan_report.hpp"
#include "engine/api/rank_link.hpp"
#include "engine/api/run_report.hpp"
#include "engine/io/output_folders.hpp"
#include "engine/io/output_set.hpp"
#include "engine/io/provenance.hpp"
#include "engine/io/run_files.hpp"
#include "engine/placement/backends.hpp"
#include "engine/plan/built_pipeline.hpp"
#include "engine/plan/memory_estimate.hpp"
#include "engine/run/checkpoint.hpp"
#include "engine/run/device_runs.hpp"
#include "engine/run/excluded_rows.hpp"
#include "engine/run/observers.hpp"
#include "engine/run/run_graph.hpp"
#include "engine/run/run_support.hpp"

namespace pacflow {

namespace {

using detail::BatchPtr;
using detail::Clock;
using detail::guarded;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A stage's run summary, with the stage's name for errors and for its checkpoint folder.
struct NamedSummary {
  std::string stage;
  std::unique_ptr<RunSummary> summary;  // null when the stage's devices model it (sim)
  std::size_t position = 0;  // the stage's, for its timing line
  std::string device = "cpu";  // where it runs, for the trace

  // Runs `work` (the summary's add or finish) and reports it: its own line in the timings and the trace.
  template <class Work>
  void timed(RunObserver& observer, const Batch& batch, Work&& work) {
    const Clock::time_point start = Clock::now();
    guarded("stage", stage, batch.index, std::forward<Work>(work));
    const Clock::time_point end = Clock::now();
    observer.on_work({ElementKind::Stage, position, batch.index, start, end, true});
    if (observer.wants_spans())
      observer.on_span({"summary", stage, device, batch.index, batch.series_count, Span::kThisThread, start, end});
  }
};

// The summaries of stages that compute. A stage on sim devices does no arithmetic, so neither does
// its summary: the model books its work (engine/devices/sim/) and finish_summaries its stand-ins.
std::vector<NamedSummary> make_summaries(const detail::BuiltPipeline& built) {
  std::vector<NamedSummary> summaries;
  for (std::size_t i = 0; i < built.stages.size(); ++i)
    if (!built.stages[i].simulated())
      if (auto summary = built.stages[i].stage->make_summary())
        summaries.push_back({built.stages[i].name, std::move(summary), i, "cpu"});
  return summaries;
}

// The summaries of stages on sim devices, which the model times (make_summaries leaves them out).
std::vector<NamedSummary> modelled_summaries(const detail::BuiltPipeline& built) {
  std::vector<NamedSummary> modelled;
  for (std::size_t i = 0; i < built.stages.size(); ++i) {
    const detail::BuiltStage& stage = built.stages[i];
    if (stage.simulated() &&
        std::any_of(stage.outputs.begin(), stage.outputs.end(), [](const TensorDecl& t) { return t.summary; }))
      modelled.push_back({stage.name, nullptr, i, stage.device});
  }
  return modelled;
}

// The end of a modelled stage's summary: as long as the model says, then zero stand-ins for its
// tensors (one row per entry of their leading dimensions).
void model_summary_finish(const detail::BuiltStage& stage, detail::DeviceRun& devices, Batch& summary,
                          const std::stop_token& stop) {
  const Clock::time_point done = devices.book_summary_finish(stage, stage.stage->summary_work());
  for (Clock::time_point now = Clock::now(); now < done; now = Clock::now()) {
    if (stop.stop_requested()) throw RunCancelled(-1);
    std::this_thread::sleep_for(std::min<Clock::duration>(done - now, std::chrono::milliseconds(10)));
  }
  for (const TensorDecl& t : stage.outputs)
    if (t.summary) {
      std::int64_t rows = 1;
      for (auto d : t.rows.leading) rows *= d;
      summary.emplace_rows(t.name, rows, t.per_series, t.dtype);
    }
}

// The checkpoint's participants are the sinks, then the run summaries (each with a folder of its own).
std::unique_ptr<Checkpoint> open_checkpoint(const detail::BuiltPipeline& built, const Plan& plan,
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
  auto checkpoint = std::make_unique<Checkpoint>(dir, run_identity(plan), built.stream.series_count(), names);
  if (checkpoint->series_done() % built.batch_multiple != 0 && checkpoint->series_done() != built.stream.series_count())
    throw InputError(fmt::format("--checkpoint {}: {} series recorded, not a whole number of groups of {}; remove it "
                                 "to start afresh",
                                 dir.string(), checkpoint->series_done(), built.batch_multiple));
  return checkpoint;
}

// Every sink and run summary picks up what the checkpoint recorded; a damaged record is bad input.
void resume(const Checkpoint& checkpoint, const detail::BuiltPipeline& built, std::vector<NamedSummary>& summaries) {
  const std::size_t sinks = built.sinks.size();
  std::size_t s = 0;
  try {
    for (; s < sinks; ++s)
      built.sinks[s].sink->resume(checkpoint.sink_dir(s), checkpoint.sink_state(s), checkpoint.series_done());
    for (; s < sinks + summaries.size(); ++s)
      summaries[s - sinks].summary->resume(checkpoint.sink_dir(s), checkpoint.sink_state(s), checkpoint.series_done());
  } catch (const json::exception& e) {
    for (auto& sink : built.sinks) sink.sink->abort();
    throw InputError(fmt::format("--checkpoint {}: the record of {} is damaged ({}); remove the checkpoint "
                                 "to start afresh",
                                 checkpoint.dir().string(),
                                 s < sinks ? fmt::format("sink \"{}\"", built.sinks[s].name)
                                           : fmt::format("stage \"{}\"'s summary", summaries[s - sinks].stage),
                                 e.what()));
  } catch (...) {
    for (auto& sink : built.sinks) sink.sink->abort();
    throw;
  }
}

// The rings before each segment but the first, allocated (and page-locked, with `page_locked` when
// given) up front: a ring too large for the machine is refused before the run starts.
std::vector<std::unique_ptr<Ring>> make_rings(const detail::BuiltPipeline& built,
                                              const std::vector<detail::Segment>& segments,
                                              const HostAllocator* page_locked) {
  std::vector<std::unique_ptr<Ring>> rings(segments.size());
  for (std::size_t k = 1; k < segments.size(); ++k) {
    const detail::Segment& seg = segments[k];
    const std::string from = seg.first_stage ? built.stages[seg.first_stage - 1].name : built.source_name;
    const std::string name = fmt::format("{} → {}", from, built.stages[seg.first_stage].name);
    std::vector<SlotTensor> layout = built.stages[seg.first_stage].crossing;
    const std::size_t slot_bytes = lay_out_slot(layout, seg.batch_series);
    try {
      rings[k] = std::make_unique<Ring>(name, seg.slots, seg.batch_series, std::move(layout), seg.overflow, page_locked);
    } catch (const std::bad_alloc&) {
      throw InputError(fmt::format("ring {}: {} slots of {} series ({:.1f} MiB each) do not fit in memory; lower "
                                   "ring= or batch= on stage \"{}\"",
                                   name, seg.slots, seg.batch_series, static_cast<double>(slot_bytes) / 0x1p20,
                                   built.stages[seg.first_stage].name));
    }
  }
  return rings;
}

// Each ring's size and what it saw.
json rings_report(const std::vector<std::unique_ptr<Ring>>& rings) {
  json report = json::array();
  for (const auto& ring : rings) {
    if (!ring) continue;
    report.push_back({{"name", ring->name()},
                      {"capacity", ring->capacity()},
                      {"batch_series", ring->batch_series()},
                      {"slot_bytes", ring->slot_bytes()},
                      {"overflow", overflow_name(ring->overflow())},
                      {"memory", ring->memory_kind()},
                      {"slots_high_water", ring->high_water()},
                      {"producer_waits", ring->waits()},
                      {"grown_slots", ring->grown()}});
  }
  return report;
}

// Records each delivered batch in the checkpoint: every sink's and summary's state after it.
class CheckpointRecorder final : public RunObserver {
 public:
  CheckpointRecorder(Checkpoint& checkpoint, const detail::BuiltPipeline& built, std::vector<NamedSummary>& summaries)
      : checkpoint_(checkpoint), built_(built), summaries_(summaries) {}
  void on_delivered(const Batch& batch) override {
    guarded("checkpoint", checkpoint_.dir().string(), batch.index, [&] {
      std::vector<json> states;
      for (auto& sink : built_.sinks) states.push_back(sink.sink->checkpoint());
      for (auto& s : summaries_) states.push_back(s.summary->checkpoint());
      checkpoint_.record(batch.first_series + batch.series_count, std::move(states));
    });
  }

 private:
  Checkpoint& checkpoint_;
  const detail::BuiltPipeline& built_;
  std::vector<NamedSummary>& summaries_;
};

// What each batch meets once it reaches the end of the chain, in index order: excluded series set
// to NaN, the run summaries, then the sinks.
void deliver_batch(Batch& batch, const detail::BuiltPipeline& built, std::vector<NamedSummary>& summaries,
                   RunObserver& observer) {
  if (!built.stream.excluded_series.empty())
    detail::mask_excluded_rows(batch, built.masked, built.stream.excluded_series);
  for (auto& s : summaries) s.timed(observer, batch, [&] { s.summary->add(batch); });
  for (std::size_t s = 0; s < built.sinks.size(); ++s) {
    const Clock::time_point start = Clock::now();
    guarded("sink", built.sinks[s].name, batch.index, [&] { built.sinks[s].sink->consume(batch); });
    detail::ElementReporter(observer, ElementKind::Sink, s, built.sinks[s].name).worked("cpu", batch, start);
  }
}

// Rank 0's delivery in a run split over ranks (engine/api/rank_link.hpp): before each of its own
// batches, every earlier batch the other ranks computed, received in index order; after its last,
// the rest. Each received batch meets what an own batch meets, and the observers hear of it.
class RankMerge {
 public:
  RankMerge(RankLink& link, std::int64_t batches, std::function<void(Batch&)> deliver, RunObserver& observer,
            std::stop_token stop)
      : link_(link), batches_(batches), deliver_(std::move(deliver)), observer_(observer), stop_(std::move(stop)) {}
  void own(Batch& batch) {
    receive_until(batch.index);
    deliver_(batch);
    next_ = batch.index + 1;
  }
  void finish() { receive_until(batches_); }

 private:
  void receive_until(std::int64_t end) {
    for (; next_ < end; ++next_) {
      const int from = link_.owner(next_);
      Batch batch;
      guarded("rank", fmt::format("rank {}", from), next_, [&] { batch = link_.receive(next_, from, stop_); });
      deliver_(batch);
      observer_.on_delivered(batch);
    }
  }

  RankLink& link_;
  std::int64_t batches_;
  std::function<void(Batch&)> deliver_;
  RunObserver& observer_;
  std::stop_token stop_;
  std::int64_t next_ = 0;
};

bool is_root(const RunOptions& options) { return !options.ranks || options.ranks->collects(); }

// What every rank of a run must plan alike: the run's identity, as a checkpoint's, and the batch sizes
// (which a rank's GPU memory may lower) that number the batches they exchange.
json rank_plan(const Plan& plan, const std::vector<detail::Segment>& segments) {
  json agreed = run_identity(plan);
  for (const auto& seg : segments) agreed["batch_series"].push_back(seg.batch_series);
  return agreed;
}

// After the last batch, each run summary makes its tensors (a modelled one, its stand-ins), which
// every sink receives.
void finish_summaries(const detail::BuiltPipeline& built, std::vector<NamedSummary>& summaries,
                      std::vector<NamedSummary>& modelled, std::int64_t index, const std::stop_token& stop,
                      RunObserver& observer, const detail::DeviceRuns& devices) {
  if (summaries.empty() && modelled.empty()) return;
  Batch summary;
  summary.stop = stop;  // a summary's finish() may be long (a million permutations): it checks
  summary.index = index;
  summary.series_count = built.stream.series_count();
  Batch finishing;  // its index (-1) and series name the finish in the timings and the trace
  finishing.index = -1;
  finishing.series_count = summary.series_count;
  for (auto& s : summaries) s.timed(observer, finishing, [&] { s.summary->finish(summary); });
  for (auto& s : modelled)
    s.timed(observer, finishing, [&] {
      const detail::BuiltStage& stage = built.stages[s.position];
      model_summary_finish(stage, devices.of(stage), summary, stop);
    });
  for (auto& sink : built.sinks) guarded("sink", sink.name, -1, [&] { sink.sink->consume_summary(summary); });
}

double tensor_bytes_per_series(const detail::BuiltPipeline& built) {
  double bytes = 0;
  for (const auto& t : built.tensors) bytes += t["bytes_per_series"].get<double>();
  return bytes;
}

// Every sink (and the trace) writes all its files under temporary names; only when all are
// complete are they moved into place, together. A failure anywhere leaves every earlier output as it
// was, and the checkpoint (which the commit copies from) stays until the outputs are in place.
// With RunOptions::commit_into the files go into the caller's set, which commits them later.
// Returns what --clean could not remove.
std::vector<std::string> commit_outputs(const detail::BuiltPipeline& built, const json& report, const RunOptions& options,
                    std::int64_t delivered, std::vector<StaleFiles> stale) {
  OutputSet own;
  OutputSet& outputs = options.commit_into ? *options.commit_into : own;
  try {
    if (options.stop.stop_requested()) throw RunCancelled(delivered);
    for (auto& sink : built.sinks) guarded("sink", sink.name, -1, [&] { sink.sink->finish(report, outputs); });
    if (options.trace && !options.trace_file.empty())
      outputs.add_content(options.trace_file, json_text(options.trace->to_json()) + "\n");
    // Only once this run's outputs are in place: a failed run leaves the earlier files as they were.
    if (options.clean) outputs.remove_after_commit(std::move(stale));
    if (options.commit_into) return {};
    outputs.commit(options.stop);
    return outputs.warnings();
  } catch (...) {
    for (auto& sink : built.sinks) sink.sink->abort();
    if (options.stop.stop_requested()) throw RunCancelled(delivered);
    throw;
  }
}

// A run planned, its memory checked, its stages prepared, its report begun and its checkpoint (if
// any) resumed: what the executor needs to start.
struct PreparedRun {
  detail::BuiltPipeline built;
  std::vector<detail::Segment> segments;
  int threads = 1;
  Plan plan;
  json files;  // every file it writes, for the report
  std::vector<StaleFiles> stale;  // files of earlier runs this one will not write
  std::vector<NamedSummary> summaries;
  std::vector<NamedSummary> modelled;  // of stages on sim devices
  std::unique_ptr<Checkpoint> checkpoint;
  std::int64_t first_series = 0;  // a resumed run starts past the series its checkpoint holds
  json rank_devices;              // with ranks, on the collector: where every rank runs each stage
};

// A rank's placement, for the collector's report: every stage's devices.
json rank_devices(const detail::BuiltPipeline& built, const RankLink& ranks) {
  json stages = json::object();
  for (const auto& stage : built.stages) stages[stage.name] = device_list_name(stage.devices);
  return {{"rank", ranks.rank()}, {"local_rank", ranks.local_rank()}, {"stages", std::move(stages)}};
}

PreparedRun prepare_run(detail::BuiltPipeline built, const std::vector<std::filesystem::path>& output_paths,
                        const std::vector<std::filesystem::path>& inputs, const OutputFolders& folders,
                        const RunOptions& options) {
  PreparedRun run;
  run.built = std::move(built);
  detail::BuiltPipeline& b = run.built;
  run.threads = std::max(1, oneapi::tbb::info::default_concurrency());
  run.segments = detail::plan_segments(b, options.batch_size, options.max_in_flight, run.threads);
  if (options.ranks && options.ranks->size() > 1) detail::uniform_batches(run.segments, b.stream.series_count());
  detail::refuse_above(options.max_memory, detail::estimate_host_memory(b, run.segments, run.threads));
  // What grows with the input is made only now that the estimate, which counts it, is within the limit.
  for (auto& stage : b.stages) guarded("stage", stage.name, -1, [&] { stage.stage->prepare(); });

  run.plan = detail::describe(b, run.segments, run.threads);
  for (const auto& note : folders.notes()) run.plan.warnings.push_back(note);
  const std::filesystem::path trace_file = options.trace ? options.trace_file : "";
  run.files = files_json(detail::run_files(b, trace_file));
  run.stale = find_stale_files(output_paths, inputs);  // the folders are held: they stay so
  for (const auto& s : run.stale) run.plan.warnings.push_back(stale_warning(s, options.clean));
  // The other ranks only compute batches: rank 0 alone keeps the summaries and the checkpoint, and
  // tells them where it resumes.
  if (is_root(options)) {
    run.summaries = make_summaries(b);
    run.modelled = modelled_summaries(b);
    run.checkpoint = open_checkpoint(b, run.plan, run.summaries, options.checkpoint);
  }
  run.first_series = run.checkpoint ? run.checkpoint->series_done() : 0;
  if (options.ranks) {
    run.first_series = options.ranks->begin(rank_plan(run.plan, run.segments), run.first_series);
    run.rank_devices = options.ranks->gather(rank_devices(b, *options.ranks));
  }
  for (auto& seg : run.segments) seg.batch_count = seg.batches(b.stream.series_count() - run.first_series);
  run.plan.segments = detail::describe_segments(b, run.segments);  // what this run carries
  if (run.checkpoint) resume(*run.checkpoint, b, run.summaries);
  return run;
}

// What the graph's run measured, once it has delivered every batch.
RunStats run_stats(const PreparedRun& run, const std::vector<std::unique_ptr<Ring>>& rings,
                   const detail::Timings& timings, double wall_s) {
  const detail::Segment& first = run.segments.front();
  RunStats stats;
  stats.series = run.built.stream.series_count();
  stats.batch_size = first.batch_series;
  stats.batches = first.batch_count;
  stats.max_in_flight = first.slots;
  stats.tensor_bytes_per_series = tensor_bytes_per_series(run.built);
  stats.threads = run.threads;
  stats.wall_s = wall_s;
  stats.rings = rings_report(rings);
  stats.stages = timings.report();
  if (run.checkpoint) stats.checkpoint = RunResumed{run.checkpoint->dir(), run.first_series};
  return stats;
}

// Runs the prepared run's flow graph to its end, with the run's observers (timings always; the
// trace, progress and checkpoint when asked for) and the caller's. Returns the report; sinks are aborted on failure.
RunReport execute(PreparedRun& run, const RunOptions& options) {
  const detail::BuiltPipeline& built = run.built;
  const std::vector<const DeviceBackend*> backends = detail::backends_used(built);
  // The rings outlive every batch, hence the graph; their slots are in the memory a backend's devices
  // copy from by DMA (page-locked, for GPUs) when a backend offers it.
  const HostAllocator* slot_memory = nullptr;
  for (const DeviceBackend* b : backends) slot_memory = slot_memory ? slot_memory : b->host_allocator();
  const std::vector<std::unique_ptr<Ring>> rings = make_rings(built, run.segments, slot_memory);

  detail::ObserverList observers;
  detail::Timings timings(built);
  observers.add(timings);
  std::optional<detail::TraceSpans> trace;
  if (options.trace) observers.add(trace.emplace(*options.trace));
  std::optional<CheckpointRecorder> checkpoint;
  if (run.checkpoint) observers.add(checkpoint.emplace(*run.checkpoint, built, run.summaries));
  std::optional<detail::ProgressReports> progress;
  if (options.on_progress) observers.add(progress.emplace(options.on_progress, run.segments.back().batch_count));
  for (RunObserver* observer : options.observers) observers.add(*observer);

  detail::FirstFailure outside_failure;  // declared before the devices, whose watchers report into it
  // Each backend's part of the run; destroyed after the graph (batches the graph still holds may
  // hold device memory, and the graph's destructor waits for work a device's clock still holds).
  detail::DeviceRuns devices({built, options, outside_failure});
  const Clock::time_point run_start = Clock::now();
  const auto deliver = [&](Batch& batch) { deliver_batch(batch, built, run.summaries, observers); };
  std::optional<RankMerge> merge;
  std::function<void(Batch&)> on_batch = deliver;
  if (options.ranks && !options.ranks->collects())
    on_batch = [&](Batch& batch) {
      guarded("rank", fmt::format("rank {}", options.ranks->rank()), batch.index, [&] { options.ranks->send(batch); });
    };
  else if (options.ranks)
    on_batch = [&merge](Batch& batch) { merge->own(batch); };
  if (options.ranks && options.ranks->collects())
    merge.emplace(*options.ranks, run.segments.back().batch_count, deliver, observers, options.stop);
  detail::RunGraph graph({built, run.segments, options, rings, run.first_series, devices, observers}, on_batch);
  try {
    graph.run();
    if (options.stop.stop_requested()) throw RunCancelled(graph.delivered());
    outside_failure.rethrow_if_any();
    if (graph.delivered() != graph.batches())
      throw std::logic_error(fmt::format("engine delivered {} of {} batches", graph.delivered(), graph.batches()));
    if (merge) merge->finish();
    finish_summaries(built, run.summaries, run.modelled, run.segments.front().batch_count, options.stop, observers,
                     devices);
  } catch (...) {
    for (auto& sink : built.sinks) sink.sink->abort();
    // Whatever surfaced while the run was stopping (a stage's RunCancelled, a batch cut short), the
    // run ends because it was asked to.
    if (options.stop.stop_requested()) throw RunCancelled(graph.delivered());
    throw;
  }
  RunReport report{std::move(run.plan), std::move(run.files), run_stats(run, rings, timings, seconds_since(run_start)), {}};
  if (options.ranks) report.run.ranks = options.ranks->size();
  report.run.rank_devices = std::move(run.rank_devices);
  if (options.ranks && options.ranks->collects() && !options.ranks->report().empty())
    report.run.rank_transfers = options.ranks->report();
  report.run.devices = devices.report();
  if (!options.provenance.is_null()) {
    report.provenance = options.provenance;
    for (const auto& b : built.device_backends->all())
      report.provenance.update(b->provenance(std::find(backends.begin(), backends.end(), b.get()) != backends.end()));
  }
  return report;
}

}  // namespace

RunReport Pipeline::run(const RunOptions& options) const {
  const std::filesystem::path trace_file = options.trace ? options.trace_file : "";
  // The output folders are ours until the run ends, from before its input is opened (a second run
  // into one is refused at once): created, locked against other runs, and cleared of what killed
  // runs left there (settling a half-done commit first).
  // With ranks, rank 0 alone writes: the others hold no folder and commit nothing.
  const bool root = is_root(options);
  const bool holds_folders = root && !options.commit_into;  // else the caller holds them
  if (options.commit_into && !options.checkpoint.empty())
    throw std::logic_error("a run committed by its caller keeps no checkpoint");
  OutputFolders folders;
  if (holds_folders) folders.hold(detail::named_output_folders(*registry_, elements_, trace_file));
  detail::Placement placed = placement();
  if (options.ranks) placed.share = {options.ranks->local_rank(), options.ranks->local_size()};
  detail::BuiltPipeline built = detail::build(*registry_, elements_, placed, options.stop);
  const std::vector<std::filesystem::path> output_paths =
      detail::check_outputs(built, *registry_, elements_, trace_file, input_files(), options.checkpoint);
  if (holds_folders) folders.hold_folders_of(output_paths);
  if (options.stop.stop_requested()) throw RunCancelled(0);
  std::vector<std::filesystem::path> inputs = input_files();
  inputs.insert(inputs.end(), built.stream.input_files.begin(), built.stream.input_files.end());

  PreparedRun run = prepare_run(std::move(built), output_paths, inputs, folders, options);
  RunReport report = execute(run, options);
  if (!root) {
    for (auto& sink : run.built.sinks) sink.sink->abort();  // consumed nothing: nothing to discard
    return report;
  }
  const std::vector<std::string> left =
      commit_outputs(run.built, report.to_json(), options, run.segments.back().batch_count, std::move(run.stale));
  if (options.commit_into) return report;
  folders.keep_created();
  for (const auto& failure : left) report.plan.warnings.push_back(failure);
  if (run.checkpoint) run.checkpoint->discard();
  return report;
}

}  // namespace pacflow
