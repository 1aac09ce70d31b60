#pragma once
// The C++ DSL: a pipeline is a source, a chain of stages and one or more sinks.
//
//   auto report = Pipeline(registry)
//       .source("synthetic", {{"epochs", 8}, {"channels", 16}})
//       .stage("bandpass", {{"pha", "2:20:10"}, {"amp", "60:160:10"}})
//       .stage("hilbert")
//       .stage("mi")
//       .sink("npy", {{"dir", "out/pac"}})
//       .run();
//
// The `.pipe` loader makes exactly these calls.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/api/compute_rates.hpp"
#include "engine/api/errors.hpp"
#include "engine/api/memory_budget.hpp"
#include "engine/api/plan_report.hpp"
#include "engine/api/registry.hpp"
#include "engine/api/run_observer.hpp"
#include "engine/api/run_report.hpp"
#include "engine/api/sim_model.hpp"

namespace pacflow {

struct ElementSpec {
  ElementKind kind = ElementKind::Stage;
  std::string name;
  json params = json::object();
  SourceLocation where;                                // of the element's name
  std::map<std::string, SourceLocation> param_where;  // of each key=value
};

// Calls fn(element, spec, value) for each output parameter (OutputDir, OutputFile) of every sink in
// `elements` whose value, given or by default, is text. `elements` may be changed by fn.
template <class Elements, class Fn>
void for_each_output(Elements& elements, const Registry& registry, Fn&& fn) {
  for (auto& e : elements) {
    if (e.kind != ElementKind::Sink) continue;
    for (const ParamSpec& spec : registry.find(e.kind, e.name)->params) {
      if (spec.type != ParamType::OutputDir && spec.type != ParamType::OutputFile) continue;
      const json& value = e.params.contains(spec.name) ? e.params[spec.name] : spec.default_value;
      if (value.is_string()) fn(e, spec, value.template get<std::string>());
    }
  }
}

struct Progress {
  std::int64_t batches_done = 0;
  std::int64_t batches_total = 0;
  double elapsed_s = 0;
  // A dataset (pipelines/dataset_run.hpp) runs its recordings one after another, each with its own
  // batches: `recording` is the one running (from 0) of the `recordings` this process runs, and
  // elapsed_s counts from the dataset's start.
  std::int64_t recording = 0;
  std::int64_t recordings = 1;
  // The share of the whole run done, 0 to 1: the recordings finished and this one's batches.
  double fraction() const {
    const double within = batches_total > 0 ? static_cast<double>(batches_done) / static_cast<double>(batches_total) : 0.0;
    return (static_cast<double>(recording) + within) / static_cast<double>(recordings);
  }
};

class DeviceBackends;
class TraceRecorder;
class OutputSet;
class RankLink;

namespace detail {
struct Placement;
}

struct RunOptions {
  std::int64_t batch_size = 0;  // series per batch; 0 chooses one
  int max_in_flight = 0;        // batches alive at once; 0 chooses one
  std::function<void(const Progress&)> on_progress;  // called from the sink thread
  TraceRecorder* trace = nullptr;                    // records a span per element and batch when set
  // When set (with `trace`), run() writes the trace there as one of the run's outputs: checked,
  // and moved into place with the sinks' files when the run succeeds (a failed run writes none).
  std::filesystem::path trace_file{};
  SimModel sim_model{};                              // the modelled accelerator behind sim:k devices
  // Cancellation: once a stop is requested, no new batch starts, the batches running finish their
  // current stage, the sinks abort, and run() throws RunCancelled. Any thread may request it.
  std::stop_token stop{};
  // When set, the run records each batch the sinks received in this folder (engine/run/checkpoint.hpp)
  // and, when it already holds a checkpoint of the same pipeline, resumes after its last batch.
  std::filesystem::path checkpoint{};
  // A run whose estimated host memory (engine/plan/memory_estimate.hpp) exceeds this (by default the
  // machine's physical memory) is refused before it starts, with the estimate's terms.
  MemoryBudget max_memory{};
  // The speeds validate() estimates the run time with (`run_time_estimate` in its plan).
  ComputeRates rates{};
  // Added to the report as `provenance` when set (collect_provenance: the command, build and machine).
  json provenance{};
  // Once the run's outputs are in place, remove the files of an earlier run that it found listed in
  // its output folders' result.json and did not write itself (engine/io/run_files.hpp); without it
  // they are only named in a warning.
  bool clean = false;
  // Told of every element's work and every delivered batch (engine/api/run_observer.hpp), after the
  // run's own observers; they must outlive run().
  std::vector<RunObserver*> observers{};
  // A run split over processes (engine/api/rank_link.hpp): this process computes the batches its rank
  // owns; rank 0 also runs the summaries and sinks, the others write nothing. Null: one process.
  RankLink* ranks = nullptr;
  // When set, the run's outputs go into this set instead of being moved into place when it ends: the
  // caller commits it together with other runs' (a dataset's recordings: all of them or none), and
  // has created and holds their folders (OutputFolders) from before the run until after the commit.
  // --clean's removals are added to the set (done once it is committed). No checkpoint then.
  OutputSet* commit_into = nullptr;
};

class Pipeline {
 public:
  explicit Pipeline(const Registry& registry);

  Pipeline& source(const std::string& name, json params = json::object());
  Pipeline& stage(const std::string& name, json params = json::object());
  Pipeline& sink(const std::string& name, json params = json::object());
  Pipeline& add(ElementSpec spec);

  // Overrides or adds one parameter. `element` is "source", "sink" (when there is one sink), or an
  // element's name. Throws InputError when no element or more than one matches.
  Pipeline& set(const std::string& element, const std::string& key, json value,
                SourceLocation where = {});
  // Points every sink's output parameters into `dir` (files keep their names).
  Pipeline& redirect_outputs(const std::string& dir);
  // The device pool for stages that name none with `on=` (default "cpu"); e.g. "cpu:0,1" replicates
  // every such stage over two CPU devices. Checked when the pipeline is built. With
  // `override_accelerators` a CPU pool also replaces every stage's sim or cuda placement (what
  // `pipeline_cli run --devices cpu` does: a CPU-only run whatever the file says).
  Pipeline& devices(std::string pool, bool override_accelerators = false);
  const std::string& device_pool() const { return device_pool_; }
  // "cpu": stages placed on cuda run on the CPU (with a warning) when no GPU is visible, as if each
  // had `fallback=cpu`; "none" (the default) stops with an error instead.
  Pipeline& fallback(std::string policy);
  // The memory budget on every GPU (`40GB`, `0.5`, …; see a stage's `vram=`); checked when built.
  Pipeline& vram(json budget);
  // The kinds of device `on=` and the pool may name (default: cpu, sim and cuda); the set must
  // outlive the pipeline's runs.
  Pipeline& device_backends(const DeviceBackends& backends);

  // A file the pipeline was made from (its `.pipe` file; load_pipe_file adds it): no output may
  // replace it.
  Pipeline& add_input_file(std::filesystem::path file);
  // Those files and the files the elements' parameters name as inputs (`path=` of npy, edf, hdf5).
  std::vector<std::filesystem::path> input_files() const;
  // The folders the sinks' output parameters name (a file's folder, after following a link at the
  // file), each checked as an output place: what a run creates and locks before it starts. Throws
  // InputError located at the parameter when one cannot be (a file where a folder goes).
  std::vector<std::filesystem::path> output_folders() const;

  const std::vector<ElementSpec>& elements() const { return elements_; }
  const Registry& registry() const { return *registry_; }
  // This pipeline's settings (device pool, fallback, GPU budget, device kinds, files it was made
  // from) over other elements, checked against `registry`, which must outlive the result: e.g. one
  // recording's pipeline of a dataset (pipelines/dataset_run.hpp).
  Pipeline variant(const Registry& registry, std::vector<ElementSpec> elements) const;

  // Opens the source, plans every element and checks every output path without running; returns the
  // plan (engine/api/plan_report.hpp; Plan::to_json() for its JSON). Throws InputError naming the
  // element, parameter and location at fault. The batch size and in-flight limit of `options` shape
  // the plan's segments as they would a run's; the plan has a run time estimate, at `options.rates`.
  Plan validate(const RunOptions& options = {}) const;
  // The same plan, checked the same way, as a Graphviz DOT digraph (engine/plan/graph_dot.hpp).
  std::string graph(const RunOptions& options = {}) const;
  // Runs to completion and returns the report (engine/api/run_report.hpp; its JSON is handed to the
  // sinks). Throws InputError for bad input and StageError when a stage fails while running.
  //
  // Outputs: before anything runs, every output path is checked (no device, FIFO or directory; no
  // input; no other output), and its folder is created and locked (engine/io/output_folders.hpp). The
  // sinks and the trace write temporaries, moved into place together when all are complete
  // (engine/io/output_set.hpp): a run that fails or is stopped leaves every earlier output as it was.
  RunReport run(const RunOptions& options = {}) const;

 private:
  detail::Placement placement() const;

  const Registry* registry_;
  std::vector<ElementSpec> elements_;
  std::string device_pool_;
  bool force_pool_ = false;
  std::string fallback_;
  json vram_;
  const DeviceBackends* backends_;
  std::vector<std::filesystem::path> input_files_;
};

// The engine's version string.
std::string engine_version();

}  // namespace pacflow
