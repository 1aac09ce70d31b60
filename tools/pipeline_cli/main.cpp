// pipeline_cli: run, validate and inspect pacflow pipelines described in `.pipe` files.
// Exit codes: 0 success, 1 the run failed, 2 bad input or usage, 128 + N the run was stopped by signal N
// (130 SIGINT, 143 SIGTERM).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <unistd.h>

#include <oneapi/tbb/info.h>

#include "engine/devices/devices.hpp"
#include "engine/devices/backends.hpp"
#include "engine/devices/sim/sim_model_file.hpp"
#include "engine/api/json_text.hpp"
#include "engine/plan/memory_estimate.hpp"
#include "engine/io/output_set.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/io/provenance.hpp"
#include "pipelines/dataset_run.hpp"
#include "pipelines/pipe_format.hpp"
#include "stages/builtin.hpp"
#include "stages/common/lanes.hpp"
#include "tools/pipeline_cli/interrupts.hpp"
#include "tools/pipeline_cli/methods_command.hpp"
#include "tools/pipeline_cli/ranks.hpp"
#include "tools/pipeline_cli/shards.hpp"

namespace {

using namespace pacflow;

constexpr int kOk = 0;
constexpr int kRunFailed = 1;
constexpr int kBadInput = 2;

struct PipelineArgs {
  std::string file;
  std::vector<std::string> sets;
  std::string devices;
  std::string fallback;
  std::string vram;
};

// The options every command that loads a pipeline takes.
void add_pipeline_options(CLI::App& command, PipelineArgs& args) {
  command.add_option("file", args.file, "the .pipe file")->required();
  command.add_option("--set", args.sets, "override or add a parameter: NAME.key=value (repeatable)");
  command.add_option("--devices", args.devices,
                     "device pool for stages without on=: cpu (default), cpu:K, cpu:K,L, cpu:K-L, cpu:*, or cuda:… "
                     "and sim:… likewise; a CPU pool here also overrides stages placed on sim or cuda (a CPU-only "
                     "run)");
  command.add_option("--fallback", args.fallback,
                     "cpu: stages placed on cuda run on the CPU (with a warning) when no GPU is visible; none "
                     "(default): that is an error")
      ->check(CLI::IsMember({"none", "cpu"}));
  command.add_option("--vram", args.vram,
                     "memory budget on every GPU: an amount (40GB, 512MiB) or a share of the device (0.8, 80%); "
                     "batches are sized to stay within it (default 90%)");
}

Pipeline load(const PipelineArgs& args) {
  Pipeline pipeline(stages::builtin_registry());
  load_pipe_file(args.file, pipeline);
  if (pipeline.elements().empty())
    throw InputError(args.file + ": no pipeline elements; expected lines such as \"source synthetic\"");
  for (const auto& text : args.sets) {
    const SetOverride o = parse_set_override(text);
    pipeline.set(o.element, o.key, o.value, SourceLocation{"--set", 0, 0});
  }
  // A CPU pool given on the command line makes a CPU-only run, whatever the file says.
  if (!args.devices.empty()) pipeline.devices(args.devices, true);
  if (!args.fallback.empty()) pipeline.fallback(args.fallback);
  if (!args.vram.empty()) pipeline.vram(args.vram);
  return pipeline;
}

void print_warnings(const json& report) {
  for (const auto& w : report.value("warnings", json::array())) fmt::print(stderr, "warning: {}\n", w.get<std::string>());
}

// Where the sinks write, read from their output parameters.
std::vector<std::string> output_locations(const Pipeline& pipeline) {
  std::vector<std::string> out;
  for_each_output(pipeline.elements(), pipeline.registry(),
                  [&](const ElementSpec&, const ParamSpec&, const std::string& value) { out.push_back(value); });
  return out;
}

// Prints progress on stderr once a run has taken more than a second.
class ProgressLine {
 public:
  void operator()(const Progress& p) {
    if (p.elapsed_s < 1.0) return;
    const bool tty = ::isatty(STDERR_FILENO) != 0;
    if (!tty && p.elapsed_s - last_printed_ < 1.0 && p.batches_done != p.batches_total) return;
    last_printed_ = p.elapsed_s;
    const double eta = p.batches_done ? p.elapsed_s * static_cast<double>(p.batches_total - p.batches_done) /
                                            static_cast<double>(p.batches_done)
                                      : 0.0;
    fmt::print(stderr, "{}pacflow: batch {}/{} ({:.0f}%), {:.1f} s elapsed, ~{:.1f} s left{}", tty ? "\r" : "",
               p.batches_done, p.batches_total, 100.0 * static_cast<double>(p.batches_done) / static_cast<double>(p.batches_total),
               p.elapsed_s, eta, tty ? "" : "\n");
    printed_ = true;
    std::fflush(stderr);
  }
  void done() const {
    if (printed_ && ::isatty(STDERR_FILENO)) fmt::print(stderr, "\n");
  }

 private:
  double last_printed_ = 0;
  bool printed_ = false;
};

struct RunArgs {
  bool sharded = false;  // --shard given (even as "")
  std::string shard;     // --shard i/N
  std::string out_dir;
  std::int64_t batch = 0;
  int in_flight = 0;
  bool quiet = false;
  std::string trace_path;
  std::string checkpoint;
  std::string max_memory;
  std::string sim_model;  // a modelled accelerator's figures (engine/devices/sim/sim_model_file.hpp)
  bool clean = false;
};

// What the user hears when a signal stopped the run; returns the exit code.
int interrupted(const cli::InterruptWatch& interrupts, const RunCancelled& stop, const RunArgs& run) {
  const int signal = interrupts.signal();
  const std::string what = fmt::format("pacflow: interrupted by {} after {} batch{}", cli::signal_name(signal),
                                       stop.batches_delivered(), stop.batches_delivered() == 1 ? "" : "es");
  if (run.checkpoint.empty())
    fmt::print(stderr, "{}; no output written (files of earlier runs are as they were)\n", what);
  else
    fmt::print(stderr, "{}; the checkpoint in {} keeps the finished batches: run the same command again to resume\n",
               what, run.checkpoint);
  return signal ? cli::interrupted_exit_code(signal) : kRunFailed;
}

// A run's failure in a job of several ranks (mpirun, srun): rank 0 reports every error; another rank
// only its run's own (an error in planning, every rank meets alike), named by its rank. The whole job
// then ends with the exit code the error has alone, since the other ranks may be waiting for this one.
[[noreturn]] void fail_job(cli::Ranks& ranks, const std::exception& error) {
  const int rank = ranks.link().rank();
  if (rank == 0 || dynamic_cast<const StageError*>(&error))
    fmt::print(stderr, "error: rank {}: {}\n", rank, error.what());
  std::fflush(stderr);
  const int code = caused_by_input(error) ? kBadInput : kRunFailed;
  ranks.abort_job(code);
  std::_Exit(code);  // not reached: abort_job ends the job
}

int run_on_ranks(const PipelineArgs& args, const RunArgs& run, const std::vector<std::string>& command_line,
                 const cli::InterruptWatch& interrupts, cli::Ranks* ranks);

// The options every run shares: batch, in-flight, stop, provenance, memory limit.
RunOptions run_options(const RunArgs& run, const cli::InterruptWatch& interrupts,
                       const std::vector<std::string>& command_line) {
  RunOptions options;
  options.batch_size = run.batch;
  options.max_in_flight = run.in_flight;
  options.stop = interrupts.token();
  options.provenance = collect_provenance(command_line, simd::simd_width());
  if (!run.max_memory.empty()) {
    try {
      options.max_memory = parse_memory_budget("max-memory", run.max_memory, /*require_unit=*/true);
    } catch (const ParamError& e) {
      throw InputError(fmt::format("--max-memory: {}", e.bare_message()));
    }
  }
  if (!run.sim_model.empty()) options.sim_model = options.rates.accelerator = read_sim_model(run.sim_model);
  return options;
}

// `run --shard i/N --out DIR`: share i of the run's batches, written into DIR for `merge`.
int shard_command(const PipelineArgs& args, const RunArgs& run, const std::vector<std::string>& command_line) {
  const cli::InterruptWatch interrupts;
  const cli::ShardSpec spec = cli::ShardSpec::parse(run.shard);
  if (cli::launched_processes() > 1)
    throw InputError("--shard runs one share in one process; start it without mpirun or srun (or use the ranks "
                     "mpirun gives, without --shard)");
  if (run.out_dir.empty()) throw InputError("--shard: name the shard's folder with --out");
  if (!run.checkpoint.empty() || !run.trace_path.empty() || run.clean)
    throw InputError("--shard: a shard writes only its batches, into its folder: --checkpoint, --trace and --clean "
                     "do not apply (a shard stopped midway is run again from its start)");
  // Loaded by its absolute path, as the merge loads it: the paths in the file resolve alike.
  PipelineArgs absolute = args;
  absolute.file = std::filesystem::absolute(args.file).lexically_normal().string();
  Pipeline pipeline = load(absolute);
  cli::ShardWriter shard(spec, run.out_dir, {absolute.file, args.sets, args.devices, args.fallback, args.vram, run.batch});
  RunOptions options = run_options(run, interrupts, command_line);
  options.ranks = &shard;
  const bool dataset = is_dataset(pipeline);
  // A dataset's shard runs its recordings whole: their folders go into the shard's, for the merge.
  if (dataset) pipeline.redirect_outputs(run.out_dir);
  json report;
  try {
    // A dataset's recordings' folders, batches.bin and shard.json are committed together.
    report = dataset ? run_dataset(pipeline, options, {}, [&](const json&, OutputSet& outputs) { shard.add_to(outputs); })
                     : pipeline.run(options);
    if (!dataset) shard.commit();
  } catch (const RunCancelled& stop) {
    return interrupted(interrupts, stop, RunArgs{});
  }
  print_warnings(report);
  if (!run.quiet && dataset) {
    fmt::print("pacflow: shard {}/{}: {} of the dataset's recordings in {}; then: pipeline_cli merge OUT {} …\n",
               spec.index, spec.count, report["recordings"].size(), run.out_dir, run.out_dir);
  } else if (!run.quiet) {
    const auto batches = report["run"]["batches"].get<std::int64_t>();
    fmt::print("pacflow: shard {}/{}: batches {}, {} + {}, … of {} in {}; then: pipeline_cli merge OUT {} …\n", spec.index,
               spec.count, spec.index, spec.index, spec.count, batches, run.out_dir, run.out_dir);
  }
  return kOk;
}

// A dataset's merge: the recordings' arrays from every shard stacked into OUT's stacked file, and
// every file a shard lists (its recordings' folders), checked, copied into OUT, all committed
// together: a shard missing, damaged or edited leaves OUT as it was.
int merge_dataset(const Pipeline& pipeline, const RunOptions& options, const cli::ShardReader& shards,
                  const std::string& out, bool quiet, const cli::InterruptWatch& interrupts) {
  json report;
  try {
    report = run_dataset(pipeline, options, {}, [&](const json&, OutputSet& outputs) {
      for (int i = 0; i < shards.size(); ++i) cli::add_checked_copies(shards, i, out, outputs, options.stop);
    });
  } catch (const RunCancelled& stop) {
    return interrupted(interrupts, stop, RunArgs{});
  }
  print_warnings(report);
  if (!quiet)
    fmt::print("pacflow: merged {} shards of dataset {}: {} recordings' folders into {}{}\n", shards.size(),
               report["dataset"].get<std::string>(), report["recordings"].size(), out,
               report.contains("stacked") ? fmt::format(", stacked in {}", report["stacked"].get<std::string>())
                                          : std::string());
  return kOk;
}

// `merge OUT SHARD…`: every shard's batches, in index order, through the pipeline's summaries and
// sinks, into OUT: the files one run writes.
int merge_command(const std::string& out, const std::vector<std::string>& shard_dirs, bool quiet,
                  const std::vector<std::string>& command_line) {
  const cli::InterruptWatch interrupts;
  std::vector<std::filesystem::path> dirs(shard_dirs.begin(), shard_dirs.end());
  cli::ShardReader shards(dirs, interrupts.token());
  const cli::ShardRecipe& recipe = shards.recipe();
  Pipeline pipeline = load({recipe.pipe_file.string(), recipe.sets, recipe.devices, recipe.fallback, recipe.vram});
  pipeline.redirect_outputs(out);
  RunArgs run;
  run.batch = recipe.batch;
  RunOptions options = run_options(run, interrupts, command_line);
  options.ranks = &shards;
  if (is_dataset(pipeline)) return merge_dataset(pipeline, options, shards, out, quiet, interrupts);
  json report;
  try {
    report = pipeline.run(options);
  } catch (const RunCancelled& stop) {
    return interrupted(interrupts, stop, run);
  }
  print_warnings(report);
  if (!quiet)
    fmt::print("pacflow: merged {} shards, {} batches; wrote {}\n", shards.size(),
               report["run"]["batches"].get<std::int64_t>(), fmt::join(output_locations(pipeline), ", "));
  return kOk;
}

int run_command(const PipelineArgs& args, const RunArgs& run, const std::vector<std::string>& command_line) {
  if (run.sharded) return shard_command(args, run, command_line);
  const cli::InterruptWatch interrupts;  // first: before any thread starts
  const std::unique_ptr<cli::Ranks> ranks = cli::start_ranks();  // after: MPI's threads inherit the blocked signals
  if (!ranks) return run_on_ranks(args, run, command_line, interrupts, nullptr);
  try {
    const int code = run_on_ranks(args, run, command_line, interrupts, ranks.get());
    if (code != kOk) ranks->abort_job(code);  // interrupted: the other ranks stop with it
    return code;
  } catch (const std::exception& e) {
    fail_job(*ranks, e);
  }
}

// A dataset (a manifest source): the pipeline once per recording (pipelines/dataset_run.hpp), over
// this process's ranks when there are several.
int run_dataset_command(const Pipeline& pipeline, RunOptions& options, const RunArgs& run,
                        const cli::InterruptWatch& interrupts, cli::Ranks* ranks) {
  if (!run.trace_path.empty())
    throw InputError("--trace: a dataset runs once per recording; trace one recording's pipeline instead");
  const bool root = !ranks || ranks->link().rank() == 0;
  options.on_progress = nullptr;  // a line per recording instead (rank 0's own)
  const auto start = std::chrono::steady_clock::now();
  auto last = start;
  const auto each = [&](const std::string& id, const json& r, const std::shared_ptr<stages::ResultArrays>&) {
    const auto now = std::chrono::steady_clock::now();
    if (root && !run.quiet)
      fmt::print("pacflow: recording {}: {} series in {:.3f} s\n", id, r["run"]["series"].get<std::int64_t>(),
                 std::chrono::duration<double>(now - last).count());
    std::fflush(stdout);
    last = now;
  };
  json report;
  try {
    report = run_dataset(pipeline, options, each);
  } catch (const RunCancelled&) {
    const int signal = interrupts.signal();
    if (root)
      fmt::print(stderr, "pacflow: interrupted by {}; no output written: a dataset's files are committed together "
                         "when every recording is done (files of earlier runs are as they were)\n",
                 cli::signal_name(signal));
    return signal ? cli::interrupted_exit_code(signal) : kRunFailed;
  } catch (const RecordingFailed& e) {
    // A recording's failure is its rank's alone: that rank says it (fail_job then ends the job).
    if (!root) fmt::print(stderr, "error: rank {}: {}\n", ranks->link().rank(), e.what());
    if (!ranks)  // one transaction: say so, as the interrupted run does
      std::throw_with_nested(RecordingFailed(fmt::format(
          "{}\nno output written: a dataset's files are committed together when every recording is done (files of "
          "earlier runs are as they were)",
          e.what())));
    throw;
  }
  if (root) print_warnings(report);
  if (!root || run.quiet) return kOk;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("pacflow: dataset {}: {} recordings in {:.3f} s{}; each one's results in a folder named after it{}\n",
             report["dataset"].get<std::string>(), report["recordings"].size(), seconds,
             ranks ? fmt::format(" over {} ranks", ranks->link().size()) : std::string(),
             report.contains("stacked") ? fmt::format(", all stacked in {}", report["stacked"].get<std::string>())
                                        : std::string());
  return kOk;
}

// The run of one process: alone, or rank k of a job (rank 0 alone prints and writes).
int run_on_ranks(const PipelineArgs& args, const RunArgs& run, const std::vector<std::string>& command_line,
                 const cli::InterruptWatch& interrupts, cli::Ranks* ranks) {
  const bool root = !ranks || ranks->link().rank() == 0;
  Pipeline pipeline = load(args);
  if (!run.out_dir.empty()) pipeline.redirect_outputs(run.out_dir);
  RunOptions options = run_options(run, interrupts, command_line);
  options.checkpoint = run.checkpoint;
  options.clean = run.clean;
  if (ranks) options.ranks = &ranks->link();
  ProgressLine progress;
  if (!run.quiet && root) options.on_progress = [&progress](const Progress& p) { progress(p); };
  // The trace is one of the run's outputs: checked, and moved into place with the sinks' files.
  TraceRecorder trace;
  if (!run.trace_path.empty()) {
    options.trace = &trace;
    options.trace_file = run.trace_path;
  }
  if (is_dataset(pipeline)) return run_dataset_command(pipeline, options, run, interrupts, ranks);
  const auto start = std::chrono::steady_clock::now();
  json report;
  try {
    report = pipeline.run(options);
  } catch (const RunCancelled& stop) {
    progress.done();
    if (!root) return interrupts.signal() ? cli::interrupted_exit_code(interrupts.signal()) : kRunFailed;
    return interrupted(interrupts, stop, run);
  } catch (...) {
    progress.done();
    throw;
  }
  progress.done();
  if (!root) return kOk;  // rank 0 reports for the job
  print_warnings(report);
  if (!run.quiet) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto batches = report["run"]["batches"].get<std::int64_t>();
    fmt::print("pacflow: {} series in {} batch{}{}, {:.3f} s; wrote {}\n", report["run"]["series"].get<std::int64_t>(),
               batches, batches == 1 ? "" : "es",
               ranks ? fmt::format(" over {} ranks", ranks->link().size()) : std::string(), seconds,
               fmt::join(output_locations(pipeline), ", "));
    if (report["run"].contains("checkpoint") && report["run"]["checkpoint"]["resumed_at_series"].get<std::int64_t>() > 0)
      fmt::print("pacflow: resumed from the checkpoint in {} at series {}\n", run.checkpoint,
                 report["run"]["checkpoint"]["resumed_at_series"].get<std::int64_t>());
  }
  return kOk;
}

// validate -n N: what each of N ranks (mpirun -n N, or N shards) needs, for SLURM's --mem and --time.
// Every rank plans the whole run and keeps as many batches in flight as one process does, so it needs
// the same memory; it computes about ceil(B / N) of the B batches, so its time is the start-up plus
// that share of the work (rank 0 also writes the outputs, counted in the work).
void print_rank_needs(const json& plan, int ranks) {
  const std::int64_t batches = plan["segments"].back()["batches"].get<std::int64_t>();
  const std::int64_t share = (batches + ranks - 1) / ranks;
  double startup = 0;
  for (const auto& term : plan["run_time_estimate"]["terms"])
    if (term["what"] == "start-up") startup += term["seconds"].get<double>();
  const double work = plan["run_time_estimate"]["seconds"].get<double>() - startup;
  fmt::print("ranks: each of {} computes at most {} of the {} batch{}{}\n", ranks, share, batches,
             batches == 1 ? "" : "es",
             ranks > batches ? fmt::format("; {} rank{} will have none: lower -n or --batch", ranks - batches,
                                           ranks - batches == 1 ? "" : "s")
                             : std::string());
  const int threads = plan["run_time_estimate"]["threads"].get<int>();
  fmt::print("per rank: at most {} of host memory (SLURM's --mem: that times the ranks on a node); about {} on its "
             "{} thread{}\n",
             detail::bytes_text(plan["host_memory_estimate"]["bytes"].get<double>()),
             duration_text(startup + work * static_cast<double>(share) / static_cast<double>(std::max<std::int64_t>(batches, 1))),
             threads, threads == 1 ? "" : "s");
}

// validate for a dataset: every recording checked, one line each, then what a job over ranks needs:
// every rank runs whole recordings (r, r + N, …), one at a time, so it needs the memory of the
// largest, and about the time of its share.
int validate_dataset_command(const Pipeline& pipeline, const RunOptions& options, int ranks) {
  const json dataset = validate_dataset(pipeline, options);
  const json& recordings = dataset["recordings"];
  double most_memory = 0;
  std::vector<double> rank_seconds(static_cast<std::size_t>(std::max(ranks, 1)), 0.0);
  for (std::size_t i = 0; i < recordings.size(); ++i) {
    const json& plan = recordings[i]["plan"];
    print_warnings(plan);
    const double memory = plan["host_memory_estimate"]["bytes"].get<double>();
    const double seconds = plan["run_time_estimate"]["seconds"].get<double>();
    most_memory = std::max(most_memory, memory);
    rank_seconds[i % rank_seconds.size()] += seconds;
    fmt::print("  {} ({}:{}): input shape {} at {} Hz; at most {}, about {}\n", recordings[i]["id"].get<std::string>(),
               dataset["dataset"].get<std::string>(), recordings[i]["line"].get<int>(), json_text(plan["input"]["shape"]),
               plan["input"].value("sample_rate_hz", 0.0), detail::bytes_text(memory), duration_text(seconds));
  }
  fmt::print("{}: ok: a dataset of {} recordings; at most {} of host memory (the largest recording's)\n",
             dataset["dataset"].get<std::string>(), recordings.size(), detail::bytes_text(most_memory));
  const double slowest = *std::max_element(rank_seconds.begin(), rank_seconds.end());
  if (ranks > 1)
    fmt::print("ranks: each of {} runs at most {} whole recording{}, one at a time: at most {} of host memory, about "
               "{} for the busiest\n",
               ranks, (recordings.size() + static_cast<std::size_t>(ranks) - 1) / static_cast<std::size_t>(ranks),
               recordings.size() > static_cast<std::size_t>(ranks) ? "s" : "", detail::bytes_text(most_memory),
               duration_text(slowest));
  else
    fmt::print("run time: about {} in all, one recording after another\n", duration_text(slowest));
  return kOk;
}

struct ValidateArgs {
  std::int64_t batch = 0;
  int in_flight = 0;
  int ranks = 1;
  std::string sim_model;
  bool json = false;  // the plan as JSON, for scripts
};

int validate_command(const PipelineArgs& args, const ValidateArgs& v) {
  const Pipeline pipeline = load(args);
  RunOptions options;
  options.batch_size = v.batch;
  options.max_in_flight = v.in_flight;
  options.rates = measured_rates(simd::simd_width());
  if (!v.sim_model.empty()) options.rates.accelerator = read_sim_model(v.sim_model);
  const int ranks = v.ranks;
  if (v.json) {
    fmt::print("{}\n", json_text(is_dataset(pipeline) ? validate_dataset(pipeline, options) : pipeline.validate(options), 2));
    return kOk;
  }
  if (is_dataset(pipeline)) return validate_dataset_command(pipeline, options, ranks);
  const json plan = pipeline.validate(options);
  print_warnings(plan);
  const auto& shape = plan["input"]["shape"];
  fmt::print("{}: ok: {} elements, input shape {}\n", args.file, pipeline.elements().size(), json_text(shape));
  for (const auto& e : plan["pipeline"])
    fmt::print("  {:6} {:12} {}\n", e["kind"].get<std::string>(), e["name"].get<std::string>(), json_text(e["params"]));
  for (const auto& group : plan["branches"])
    fmt::print("branches: {} run side by side on each batch\n", fmt::join(group.get<std::vector<std::string>>(), " | "));
  // The estimate `run` checks against --max-memory, and an estimate of the time (engine/plan/run_time_estimate.hpp).
  fmt::print("memory: at most {} of host memory, estimated (what run --max-memory checks)\n",
             detail::bytes_text(plan["host_memory_estimate"]["bytes"].get<double>()));
  const json& time = plan["run_time_estimate"];
  const int threads = time["threads"].get<int>();
  fmt::print("run time: about {} on {} thread{} (an estimate from each stage's work; docs/performance.md)\n",
             duration_text(time["seconds"].get<double>()), threads, threads == 1 ? "" : "s");
  if (ranks > 1) print_rank_needs(plan, ranks);
  return kOk;
}

int graph_command(const PipelineArgs& args, const std::string& output, std::int64_t batch, int in_flight) {
  const Pipeline pipeline = load(args);
  RunOptions options;
  options.batch_size = batch;
  options.max_in_flight = in_flight;
  const std::string dot = pipeline.graph(options);
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

// Every element, or only those called `name` (a source and a sink may share one: npy, hdf5).
int stages_command(const std::string& name) {
  const Registry& registry = stages::builtin_registry();
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

}  // namespace

int main(int argc, char** argv) {
  // Past a file-size limit (ulimit -f) a write fails with EFBIG, reported as a full disk is (exit 1,
  // temporaries removed, earlier outputs as they were), instead of the signal killing the process.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"pacflow: phase-amplitude coupling pipelines on a oneTBB flow graph.\n"
               "Exit codes: 0 ok, 1 run failed, 2 bad input or usage, 130 stopped by SIGINT, 143 by SIGTERM."};
  app.set_version_flag("--version", "pipeline_cli (pacflow) " + engine_version() + " (" + build_describe() + ")");
  app.require_subcommand(1);

  PipelineArgs args;
  RunArgs run_args;
  std::int64_t batch = 0;
  int in_flight = 0;

  auto* run = app.add_subcommand("run", "run a pipeline file");
  add_pipeline_options(*run, args);
  run->add_option("--out", run_args.out_dir, "write every sink's output into this directory");
  run->add_option("--batch", run_args.batch, "series per batch, 0 = chosen from the input size")
      ->check(CLI::Range(0, 1000000));
  run->add_option("--in-flight", run_args.in_flight, "most batches alive at once, 0 = 2 per thread")
      ->check(CLI::Range(0, 100000));
  run->add_flag("-q,--quiet", run_args.quiet, "no progress line or summary");
  run->add_option("--trace", run_args.trace_path,
                  "write a Chrome trace (one span per element and batch) to this JSON file, with the outputs when the "
                  "run succeeds; open it in https://ui.perfetto.dev or chrome://tracing");
  run->add_option("--checkpoint", run_args.checkpoint,
                  "record every finished batch in this folder; a run stopped by a signal, a kill or a crash resumes "
                  "there when started again with the same pipeline and input (sinks npy and png)");
  run->add_option("--max-memory", run_args.max_memory,
                  "refuse to start when the run's estimated memory exceeds this: an amount with its unit (8GB, "
                  "512MiB) or a share of the machine's memory with a percent sign (50%)");
  run->add_option("--sim-model", run_args.sim_model,
                  "the figures of the sim:k devices, from a JSON file (e.g. bench/sim_models/h100_measured.json: "
                  "an H100's stage rates measured by gpu_bench) instead of the H100 datasheet's peak");

  run->add_option("--shard", run_args.shard,
                  "i/N: compute share i of N of the run (its batches i, i + N, …) into the --out folder, for "
                  "`merge` to assemble (a job array: $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)");
  run->add_flag("--clean", run_args.clean,
                "once the run succeeded, remove the files an earlier run listed in an output folder's result.json "
                "that this run does not write (without it they are named in a warning)");

  std::string graph_output;
  auto* graph = app.add_subcommand("graph", "print the pipeline as a Graphviz DOT graph (render: dot -Tsvg)");
  add_pipeline_options(*graph, args);
  graph->add_option("-o,--output", graph_output, "write the DOT text to this file instead of stdout");
  graph->add_option("--in-flight", in_flight, "most batches alive at once, as for run (0 = 2 per thread)")
      ->check(CLI::Range(0, 100000));
  graph->add_option("--batch", batch, "series per batch, as for run (0 = chosen from the input size)")
      ->check(CLI::Range(0, 1000000));

  std::string merge_out;
  std::vector<std::string> merge_shards;
  bool merge_quiet = false;
  auto* merge = app.add_subcommand("merge", "assemble the outputs of one run from its shards (run --shard i/N)");
  merge->add_option("out", merge_out, "where the run's outputs go (every sink's files, as run --out)")->required();
  merge->add_option("shards", merge_shards, "the shards' folders, every i of N once")->required();
  merge->add_flag("-q,--quiet", merge_quiet, "no summary");

  auto* devices = app.add_subcommand("devices", "list the devices this machine offers");

  auto* validate = app.add_subcommand(
      "validate", "check a pipeline file without running it; prints the memory estimate and an estimated run time");
  add_pipeline_options(*validate, args);
  ValidateArgs validate_args;
  validate->add_option("--batch", validate_args.batch, "series per batch, as for run (0 = chosen from the input size)")
      ->check(CLI::Range(0, 1000000));
  validate->add_option("--in-flight", validate_args.in_flight,
                       "most batches alive at once, as for run (0 = 2 per thread)")
      ->check(CLI::Range(0, 100000));
  validate->add_option("-n,--ranks", validate_args.ranks,
                       "also say what each of N ranks (mpirun -n N, or N shards) needs: memory and time, for "
                       "SLURM's --mem and --time")
      ->check(CLI::Range(1, 1000000));
  validate->add_option("--sim-model", validate_args.sim_model,
                       "estimate stages on sim or cuda devices with this modelled accelerator (as run --sim-model)");
  validate->add_flag("--json", validate_args.json,
                     "print the checked plan as JSON (every element's resolved parameters, tensors, memory and "
                     "time estimates with each stage's flops), for scripts");

  std::string methods_target, methods_out;
  auto* methods = app.add_subcommand(
      "methods", "print the methods paragraph of a finished run, with its references: the data, filters, measure, "
                 "surrogates, trial-level test, correction and family, and pacflow's version");
  methods->add_option("OUT", methods_target, "the run's output folder (with result.json), its result.json, or the "
                                             "hdf5 sink's .h5 file")
      ->required();
  methods->add_option("--out", methods_out, "write the paragraph to this file (atomically) instead of stdout");

  std::string stage_name;
  auto* stages_cmd = app.add_subcommand("stages", "list every source, stage and sink with its parameters");
  stages_cmd->add_option("name", stage_name, "show only the elements of this name (e.g. bandpass, npy)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kOk : kBadInput;
  }
  run_args.sharded = run->count("--shard") > 0;

  try {
    if (run->parsed()) return run_command(args, run_args, std::vector<std::string>(argv, argv + argc));
    if (merge->parsed())
      return merge_command(merge_out, merge_shards, merge_quiet, std::vector<std::string>(argv, argv + argc));
    if (validate->parsed()) return validate_command(args, validate_args);
    if (graph->parsed()) return graph_command(args, graph_output, batch, in_flight);
    if (devices->parsed()) return devices_command();
    if (stages_cmd->parsed()) return stages_command(stage_name);
    if (methods->parsed()) return cli::methods_command(methods_target, methods_out);
    return kBadInput;
  } catch (const std::exception& e) {  // bad input anywhere in its chain (caused_by_input) exits 2
    fmt::print(stderr, "error: {}\n", e.what());
    return caused_by_input(e) ? kBadInput : kRunFailed;
  }
}
