#include "tools/pipeline_cli/inspect_commands.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <vector>

#include "engine/api/json_text.hpp"
#include "engine/io/output_set.hpp"
#include "engine/placement/backends.hpp"
#include "engine/plan/memory_estimate.hpp"
#include "engine/api/plan_report.hpp"
#include "engine/plan/run_time_estimate.hpp"
#include "pipelines/app/job.hpp"
#include "pipelines/app/registry.hpp"
#include "stages/common/lanes.hpp"
#include "tools/pipeline_cli/exit_codes.hpp"
#include "tools/pipeline_cli/warnings.hpp"

namespace pacflow::cli {

namespace {

// validate -n N: what each of N ranks (mpirun -n N, or N shards) needs, for SLURM's --mem and --time.
// Every rank plans the whole run and keeps as many batches in flight as one process does, so it needs
// the same memory; it computes about ceil(B / N) of the B batches, so its time is the start-up plus
// that share of the work (rank 0 also writes the outputs, counted in the work).
void print_rank_needs(const Plan& plan, int ranks) {
  const std::int64_t batches = plan.segments.back().batches;
  const std::int64_t share = (batches + ranks - 1) / ranks;
  const RunTimeEstimate& time = *plan.run_time;
  double startup = 0;
  for (const auto& term : time.terms)
    if (term.what == "start-up") startup += term.seconds;
  const double work = time.total() - startup;
  fmt::print("ranks: each of {} computes at most {} of the {} batch{}{}\n", ranks, share, batches,
             batches == 1 ? "" : "es",
             ranks > batches ? fmt::format("; {} rank{} will have none: lower -n or --batch", ranks - batches,
                                           ranks - batches == 1 ? "" : "s")
                             : std::string());
  fmt::print("per rank: at most {} of host memory (SLURM's --mem: that times the ranks on a node); about {} on its "
             "{} thread{}\n",
             bytes_text(plan.host_memory.total()),
             duration_text(startup + work * static_cast<double>(share) /
                                         static_cast<double>(std::max<std::int64_t>(batches, 1))),
             time.threads, time.threads == 1 ? "" : "s");
}

// validate for a dataset: every recording checked, one line each, then what a job over ranks needs:
// every rank runs whole recordings (r, r + N, …), one at a time, so it needs the memory of the
// largest, and about the time of its share.
void print_dataset_plan(const DatasetPlan& dataset, int ranks) {
  print_warnings(dataset.warnings);  // about the dataset as read (a BIDS subject not listed, …)
  double most_memory = 0;
  std::vector<double> rank_seconds(static_cast<std::size_t>(std::max(ranks, 1)), 0.0);
  for (std::size_t i = 0; i < dataset.recordings.size(); ++i) {
    const DatasetPlan::Recording& recording = dataset.recordings[i];
    const Plan& plan = recording.plan;
    print_warnings(plan.warnings);
    const double memory = plan.host_memory.total();
    const double seconds = plan.run_time->total();
    most_memory = std::max(most_memory, memory);
    rank_seconds[i % rank_seconds.size()] += seconds;
    fmt::print("  {} ({}): input shape {} at {} Hz; at most {}, about {}\n", recording.id, recording.origin,
               json_text(plan.input.shape), plan.input.sample_rate_hz, bytes_text(memory), duration_text(seconds));
  }
  fmt::print("{}: ok: a dataset of {} recordings; at most {} of host memory (the largest recording's)\n",
             dataset.dataset, dataset.recordings.size(), bytes_text(most_memory));
  const double slowest = *std::max_element(rank_seconds.begin(), rank_seconds.end());
  const std::size_t count = dataset.recordings.size();
  if (ranks > 1)
    fmt::print("ranks: each of {} runs at most {} whole recording{}, one at a time: at most {} of host memory, about "
               "{} for the busiest\n",
               ranks, (count + static_cast<std::size_t>(ranks) - 1) / static_cast<std::size_t>(ranks),
               count > static_cast<std::size_t>(ranks) ? "s" : "", bytes_text(most_memory),
               duration_text(slowest));
  else
    fmt::print("run time: about {} in all, one recording after another\n", duration_text(slowest));
}

// A stream's checked plan: its elements, branches, memory and time estimates.
void print_plan(const app::Job& job, const std::string& file, const Plan& plan, int ranks) {
  print_warnings(plan.warnings);
  fmt::print("{}: ok: {} elements, input shape {}\n", file, job.pipeline().elements().size(), json_text(plan.input.shape));
  for (const auto& e : plan.elements) fmt::print("  {:6} {:12} {}\n", kind_name(e.kind), e.name, json_text(e.params));
  for (const auto& group : plan.branches) fmt::print("branches: {} run side by side on each batch\n", fmt::join(group, " | "));
  // The estimate `run` checks against --max-memory, and an estimate of the time (engine/plan/run_time_estimate.hpp).
  fmt::print("memory: at most {} of host memory, estimated (what run --max-memory checks)\n",
             bytes_text(plan.host_memory.total()));
  const RunTimeEstimate& time = *plan.run_time;
  fmt::print("run time: about {} on {} thread{} (an estimate from each stage's work; docs/performance.md)\n",
             duration_text(time.total()), time.threads, time.threads == 1 ? "" : "s");
  if (ranks > 1) print_rank_needs(plan, ranks);
}

// One line per parameter: name, type, unit, default, allowed values, doc.
void print_params(const std::vector<ParamSpec>& params) {
  for (const auto& p : params) {
    const std::string def = p.default_value.is_null() ? (p.optional ? "unset" : "required")
                            : p.default_value.is_string() ? p.default_value.get<std::string>()
                                                          : p.default_value.dump();
    const std::string allowed = p.constraint_text();
    fmt::print("    {:<11} {:<17} {:<16} default {:<18} {}{}\n", p.name, param_type_name(p.type),
               p.unit.empty() ? "" : "[" + p.unit + "]", def, allowed.empty() ? "" : "(" + allowed + ") ", p.doc);
  }
}

}  // namespace

int validate_command(const app::JobSpec& spec, const ValidateFlags& flags) {
  const app::Job job = app::load_job(spec, app::registry());
  RunOptions options = app::run_options(spec);
  options.rates = measured_rates(simd::simd_width());
  if (!spec.sim_model.empty()) options.rates.accelerator = options.sim_model;
  const app::JobPlan plan = job.validate(options);
  if (flags.json)
    fmt::print("{}\n", json_text(app::to_json(plan), 2));
  else if (const auto* dataset = std::get_if<DatasetPlan>(&plan))
    print_dataset_plan(*dataset, flags.ranks);
  else
    print_plan(job, spec.pipe_file.string(), std::get<Plan>(plan), flags.ranks);
  return kOk;
}

int graph_command(const app::JobSpec& spec, const std::string& output) {
  const Pipeline pipeline = app::load_pipeline(spec, app::registry());
  const std::string dot = pipeline.graph(app::run_options(spec));
  if (output.empty())
    fmt::print("{}", dot);
  else
    write_outputs({{output, dot}}, pipeline.input_files());  // never over an input, a device or a FIFO
  return kOk;
}

int devices_command() {
  // The cuda backend loads its plugin here: its line says why there are no GPUs when there are none.
  for (const auto& backend : builtin_device_backends().all())
    for (const auto& line : backend->listing()) fmt::print("{}\n", line);
  return kOk;
}

// Every element, or only those called `name` (a source and a sink may share one: npy, hdf5).
int stages_command(const std::string& name) {
  const Registry& registry = app::registry();
  if (!name.empty() && std::none_of(registry.all().begin(), registry.all().end(),
                                    [&](const ElementInfo& info) { return info.name == name; })) {
    std::vector<std::string> names;
    for (const auto& info : registry.all()) names.push_back(info.name);
    const std::string hint = suggest(name, names);
    throw InputError(fmt::format("stages: no source, stage or sink is called \"{}\"{}", name,
                                 hint.empty() ? "; pipeline_cli stages lists them all" : "; " + hint));
  }
  bool listed_stage = false;
  for (auto kind : {ElementKind::Source, ElementKind::Stage, ElementKind::Sink}) {
    for (const auto& info : registry.all()) {
      if (info.kind != kind || (!name.empty() && info.name != name)) continue;
      fmt::print("{} {}{}: {}\n", kind_name(kind), info.name, info.make_transform ? " (preprocessing)" : "",
                 info.summary);
      print_params(info.params);
      listed_stage = listed_stage || (kind == ElementKind::Stage && !info.make_transform);
    }
  }
  if (listed_stage) {
    fmt::print("placement: every stage but a preprocessing one also takes\n");
    print_params(placement_params());
  }
  return kOk;
}

}  // namespace pacflow::cli
