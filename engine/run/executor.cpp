// Pipeline::run: plans the run (segments, memory, checkpoint), runs its flow graph
// (engine/run/run_graph.hpp), and reports and commits what the sinks wrote.
//
// Placement: a stage on `cpu` runs in the graph's own arena, any number of batches at once. A stage
// on CPU devices (cpu:k, one or more replicas) is a node whose concurrency is its replica count; a
// batch arriving there leases a free replica and runs inside that device's task_arena. A stage on
// sim devices is an async_node released by the model's clock (engine/run/stage_nodes.hpp). A stage on
// GPUs is an async_node from the GPU backend: its body queues the batch's copies and kernels on the
// batch's stream and returns; the batch goes on at once when the next stage runs on the same GPU
// (the stream orders their work), or, when it leaves the GPU, once the event after its download
// completes (engine/devices/cuda/runtime.hpp).
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

#include "engine/plan/built_pipeline.hpp"
#include "engine/run/checkpoint.hpp"
#include "engine/run/excluded_rows.hpp"
#include "engine/api/json_text.hpp"
#include "engine/plan/memory_estimate.hpp"
#include "engine/io/output_folders.hpp"
#include "engine/io/output_set.hpp"
#include "engine/devices/placement.hpp"
#include "engine/io/provenance.hpp"
#include "engine/io/run_files.hpp"
#include "engine/run/run_support.hpp"
#include "engine/devices/gpu_plugin.hpp"
#include "engine/run/run_graph.hpp"

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

// One element's row of the report's per-stage timings.
json timing_report(const std::string& kind, const std::string& name, const StageTiming& t) {
  const double total = static_cast<double>(t.nanoseconds.load()) * 1e-9;
  const auto n = t.batches.load();
  json row{{"kind", kind}, {"name", name}, {"batches", n}, {"busy_s", total},
           {"mean_ms_per_batch", n ? 1e3 * total / static_cast<double>(n) : 0.0}};
  if (const auto gpu = t.gpu_nanoseconds.load()) row["gpu_kernel_s"] = static_cast<double>(gpu) * 1e-9;
  return row;
}

// What each batch meets once it reaches the end of the chain, in index order: excluded series set
// to NaN, the run summaries, the sinks, then the checkpoint's record.
void deliver_batch(Batch& batch, const detail::BuiltPipeline& built, std::vector<NamedSummary>& summaries,
                   std::vector<StageTiming>& sink_timings, const RunOptions& options, Checkpoint* checkpoint) {
  if (!built.stream.excluded_series.empty())
    detail::mask_excluded_rows(batch, built.masked, built.stream.excluded_series);
  for (auto& s : summaries) guarded("stage", s.stage, batch.index, [&] { s.summary->add(batch); });
  for (std::size_t s = 0; s < built.sinks.size(); ++s) {
    const Clock::time_point start = Clock::now();
    guarded("sink", built.sinks[s].name, batch.index, [&] { built.sinks[s].sink->consume(batch); });
    sink_timings[s].add(start);
    if (options.trace)
      options.trace->record("sink", built.sinks[s].name, "cpu", batch.index, batch.series_count, start, Clock::now());
  }
  if (checkpoint)
    guarded("checkpoint", checkpoint->dir().string(), batch.index, [&] {
      std::vector<json> states;
      for (auto& sink : built.sinks) states.push_back(sink.sink->checkpoint());
      for (auto& s : summaries) states.push_back(s.summary->checkpoint());
      checkpoint->record(batch.first_series + batch.series_count, std::move(states));
    });
}

double tensor_bytes_per_series(const detail::BuiltPipeline& built) {
  double bytes = 0;
  for (const auto& t : built.tensors) bytes += t["bytes_per_series"].get<double>();
  return bytes;
}

// Every element's row of the report's per-stage timings.
json timings_report(const detail::BuiltPipeline& built, const StageTiming& source, const std::vector<StageTiming>& stages,
                    const std::vector<StageTiming>& sinks) {
  json rows = json::array();
  rows.push_back(timing_report("source", built.source_name, source));
  for (std::size_t i = 0; i < built.stages.size(); ++i) rows.push_back(timing_report("stage", built.stages[i].name, stages[i]));
  for (std::size_t i = 0; i < built.sinks.size(); ++i) rows.push_back(timing_report("sink", built.sinks[i].name, sinks[i]));
  return rows;
}

// Every sink (and the trace) writes all its files under temporary names; only when all are
// complete are they moved into place, together. A failure anywhere leaves every earlier output as it
// was, and the checkpoint (which the commit copies from) stays until the outputs are in place.
void commit_outputs(const detail::BuiltPipeline& built, const json& report, const RunOptions& options,
                    std::int64_t delivered) {
  OutputSet outputs;
  try {
    if (options.stop.stop_requested()) throw RunCancelled(delivered);
    for (auto& sink : built.sinks) guarded("sink", sink.name, -1, [&] { sink.sink->finish(report, outputs); });
    if (options.trace && !options.trace_file.empty())
      outputs.add_content(options.trace_file, json_text(options.trace->to_json()) + "\n");
    outputs.commit(options.stop);
  } catch (...) {
    for (auto& sink : built.sinks) sink.sink->abort();
    if (options.stop.stop_requested()) throw RunCancelled(delivered);
    throw;
  }
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
  const int threads = std::max(1, oneapi::tbb::info::default_concurrency());

  std::vector<detail::Segment> segments =
      detail::plan_segments(built, options.batch_size, options.max_in_flight, threads);
  detail::refuse_above(options.max_memory, detail::estimate_host_memory(built, segments, threads));
  // What grows with the input is made only now that the estimate, which counts it, is within the limit.
  for (auto& stage : built.stages) guarded("stage", stage.name, -1, [&] { stage.stage->prepare(); });

  // A checkpointed run that resumes carries only the series after those already recorded.
  json description = detail::describe(built, segments, threads);
  for (const auto& note : folders.notes()) description["warnings"].push_back(note);
  description["files"] = files_json(detail::run_files(built, trace_file));
  const std::vector<StaleFiles> stale = find_stale_files(output_paths);  // the folders are held: they stay so
  for (const auto& s : stale) description["warnings"].push_back(stale_warning(s, options.clean));
  std::vector<NamedSummary> summaries = make_summaries(built);
  const std::unique_ptr<Checkpoint> checkpoint = open_checkpoint(built, description, summaries, options.checkpoint);
  const std::int64_t first_series = checkpoint ? checkpoint->series_done() : 0;
  for (auto& seg : segments) seg.batch_count = seg.batches(series - first_series);
  description["segments"] = detail::describe_segments(built, segments);  // what this run carries
  if (checkpoint) resume(*checkpoint, built, summaries);

  // A run on GPUs takes its page-locked memory, and its stages' nodes, from the GPU backend.
  const bool on_gpus = std::any_of(built.stages.begin(), built.stages.end(), [](const auto& s) { return s.on_gpu(); });
  GpuBackend* const gpu_backend = on_gpus ? gpu_plugin().backend.get() : nullptr;
  if (on_gpus && !gpu_backend) throw std::logic_error("a stage was placed on a GPU without the GPU backend");

  // The rings outlive every batch, hence the graph.
  const std::vector<std::unique_ptr<Ring>> rings =
      make_rings(built, segments, gpu_backend ? &gpu_backend->page_locked() : nullptr);

  std::vector<StageTiming> timings(built.stages.size());
  StageTiming source_timing;
  std::vector<StageTiming> sink_timings(built.sinks.size());
  detail::FirstFailure outside_failure;  // declared before the GPU runtime, whose watcher reports into it
  // The run's GPUs; destroyed after the graph (their watcher may still see the last events).
  const std::unique_ptr<GpuRun> gpus =
      gpu_backend ? gpu_backend->start(detail::gpu_budgets(built), outside_failure) : nullptr;
  const Clock::time_point run_start = Clock::now();
  const auto deliver = [&](Batch& batch) { deliver_batch(batch, built, summaries, sink_timings, options, checkpoint.get()); };
  detail::RunGraph graph({built, segments, options, rings, first_series, gpus.get(), source_timing, timings}, deliver);
  try {
    graph.run();
    if (options.stop.stop_requested()) throw RunCancelled(graph.delivered());
    outside_failure.rethrow_if_any();
    if (graph.delivered() != graph.batches())
      throw std::logic_error(fmt::format("engine delivered {} of {} batches", graph.delivered(), graph.batches()));
    if (!summaries.empty()) {
      Batch summary;
      summary.index = segments.front().batch_count;
      summary.series_count = series;
      for (auto& s : summaries) guarded("stage", s.stage, -1, [&] { s.summary->finish(summary); });
      for (auto& sink : built.sinks) guarded("sink", sink.name, -1, [&] { sink.sink->consume_summary(summary); });
    }
  } catch (...) {
    for (auto& sink : built.sinks) sink.sink->abort();
    // Whatever surfaced while the run was stopping (a stage's RunCancelled, a batch cut short), the
    // run ends because it was asked to.
    if (options.stop.stop_requested()) throw RunCancelled(graph.delivered());
    throw;
  }
  json report = std::move(description);
  report["run"] = {{"series", series},
                   {"batch_size", segments.front().batch_series},
                   {"batches", segments.front().batch_count},
                   {"max_in_flight", segments.front().slots},
                   {"tensor_bytes_per_series", tensor_bytes_per_series(built)},
                   {"threads", threads},
                   {"threads_per_cpu_device", graph.threads_per_cpu_device()},
                   {"wall_s", seconds_since(run_start)},
                   {"rings", rings_report(rings)},
                   {"stages", timings_report(built, source_timing, timings, sink_timings)}};
  if (checkpoint) report["run"]["checkpoint"] = {{"dir", checkpoint->dir().string()}, {"resumed_at_series", first_series}};
  if (!options.provenance.is_null()) {
    report["provenance"] = options.provenance;
    report["provenance"].update(gpu_provenance(gpu_backend != nullptr));
  }
  if (gpus) report["run"]["gpu"] = gpus->report();

  commit_outputs(built, report, options, graph.delivered());
  folders.keep_created();
  // Only now that this run's outputs are in place: a failed run leaves the earlier files as they were.
  if (options.clean)
    for (auto& failure : remove_stale_files(stale)) report["warnings"].push_back(std::move(failure));
  if (checkpoint) checkpoint->discard();
  return report;
}

}  // namespace pacflow
