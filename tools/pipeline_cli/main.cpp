// pipeline_cli: run, validate and inspect pacflow pipelines described in `.pipe` files. The options
// fill a job's description (pipelines/app/job_spec.hpp); the commands run it through the run modes
// of pipelines/app/runners.hpp (run_commands.hpp) or look at it (inspect_commands.hpp).
// Exit codes: 0 success, 1 the run failed, 2 bad input or usage, 128 + N the run was stopped by signal N
// (130 SIGINT, 143 SIGTERM).
#include <CLI/CLI.hpp>
#include <csignal>
#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "engine/io/provenance.hpp"
#include "tools/pipeline_cli/exit_codes.hpp"
#include "tools/pipeline_cli/inspect_commands.hpp"
#include "tools/pipeline_cli/methods_command.hpp"
#include "tools/pipeline_cli/run_commands.hpp"

namespace {

using namespace pacflow;
using namespace pacflow::cli;

// The options every command that loads a pipeline takes: the file, overrides, placement.
void add_pipeline_options(CLI::App& command, app::JobSpec& spec, std::string& file) {
  command.add_option("file", file, "the .pipe file")->required();
  command.add_option("--set", spec.sets, "override or add a parameter: NAME.key=value (repeatable)");
  command.add_option("--devices", spec.devices,
                     "device pool for stages without on=: cpu (default), cpu:K, cpu:K,L, cpu:K-L, cpu:*, or cuda:… "
                     "and sim:… likewise; a CPU pool here also overrides stages placed on sim or cuda (a CPU-only "
                     "run)");
  command.add_option("--fallback", spec.fallback,
                     "cpu: stages placed on cuda run on the CPU (with a warning) when no GPU is visible; none "
                     "(default): that is an error")
      ->check(CLI::IsMember({"none", "cpu"}));
  command.add_option("--vram", spec.vram,
                     "memory budget on every GPU: an amount (40GB, 512MiB) or a share of the device (0.8, 80%); "
                     "batches are sized to stay within it (default 90%)");
}

// --batch and --in-flight, as every command that plans a run takes them.
void add_batch_options(CLI::App& command, app::JobSpec& spec, bool as_for_run) {
  command.add_option("--batch", spec.batch,
                     as_for_run ? "series per batch, as for run (0 = chosen from the input size)"
                                : "series per batch, 0 = chosen from the input size")
      ->check(CLI::Range(0, 1000000));
  command.add_option("--in-flight", spec.in_flight,
                     as_for_run ? "most batches alive at once, as for run (0 = 2 per thread)"
                                : "most batches alive at once, 0 = 2 per thread")
      ->check(CLI::Range(0, 100000));
}

void add_run_options(CLI::App& run, app::JobSpec& spec, RunFlags& flags) {
  run.add_option("--out", spec.out_dir, "write every sink's output into this directory");
  add_batch_options(run, spec, false);
  run.add_flag("-q,--quiet", flags.quiet, "no progress line or summary");
  run.add_option("--trace", spec.trace,
                 "write a Chrome trace (one span per element and batch) to this JSON file, with the outputs when the "
                 "run succeeds; open it in https://ui.perfetto.dev or chrome://tracing");
  run.add_option("--checkpoint", spec.checkpoint,
                 "record every finished batch in this folder; a run stopped by a signal, a kill or a crash resumes "
                 "there when started again with the same pipeline and input (sinks npy and png)");
  run.add_option("--max-memory", spec.max_memory,
                 "refuse to start when the run's estimated memory exceeds this: an amount with its unit (8GB, "
                 "512MiB) or a share of the machine's memory with a percent sign (50%)");
  run.add_option("--sim-model", spec.sim_model,
                 "the figures of the sim:k devices, from a JSON file (e.g. bench/sim_models/h100_measured.json: "
                 "an H100's stage rates measured by gpu_bench) instead of the H100 datasheet's peak");
  run.add_option("--shard", flags.shard,
                 "i/N: compute share i of N of the run (its batches i, i + N, …) into the --out folder, for "
                 "`merge` to assemble (a job array: $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)");
  run.add_flag("--clean", spec.clean,
               "once the run succeeded, remove the files an earlier run listed in an output folder's result.json "
               "that this run does not write (without it they are named in a warning)");
}

void add_validate_options(CLI::App& validate, app::JobSpec& spec, ValidateFlags& flags) {
  add_batch_options(validate, spec, true);
  validate.add_option("-n,--ranks", flags.ranks,
                      "also say what each of N ranks (mpirun -n N, or N shards) needs: memory and time, for "
                      "SLURM's --mem and --time")
      ->check(CLI::Range(1, 1000000));
  validate.add_option("--sim-model", spec.sim_model,
                      "estimate stages on sim or cuda devices with this modelled accelerator (as run --sim-model)");
  validate.add_flag("--json", flags.json,
                    "print the checked plan as JSON (every element's resolved parameters, tensors, memory and "
                    "time estimates with each stage's flops), for scripts");
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

  app::JobSpec spec;
  std::string file;
  RunFlags run_flags;
  auto* run = app.add_subcommand("run", "run a pipeline file");
  add_pipeline_options(*run, spec, file);
  add_run_options(*run, spec, run_flags);

  std::string graph_output;
  auto* graph = app.add_subcommand("graph", "print the pipeline as a Graphviz DOT graph (render: dot -Tsvg)");
  add_pipeline_options(*graph, spec, file);
  graph->add_option("-o,--output", graph_output, "write the DOT text to this file instead of stdout");
  add_batch_options(*graph, spec, true);

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
  add_pipeline_options(*validate, spec, file);
  ValidateFlags validate_flags;
  add_validate_options(*validate, spec, validate_flags);

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
  spec.pipe_file = file;
  run_flags.sharded = run->count("--shard") > 0;
  const std::vector<std::string> command_line(argv, argv + argc);

  try {
    if (run->parsed()) return run_command(spec, run_flags, command_line);
    if (merge->parsed()) return merge_command(merge_out, merge_shards, merge_quiet, command_line);
    if (validate->parsed()) return validate_command(spec, validate_flags);
    if (graph->parsed()) return graph_command(spec, graph_output);
    if (devices->parsed()) return devices_command();
    if (stages_cmd->parsed()) return stages_command(stage_name);
    if (methods->parsed()) return methods_command(methods_target, methods_out);
    return kBadInput;
  } catch (const std::exception& e) {  // bad input anywhere in its chain (caused_by_input) exits 2
    fmt::print(stderr, "error: {}\n", e.what());
    return caused_by_input(e) ? kBadInput : kRunFailed;
  }
}
