#include "tools/pipeline_cli/run_commands.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>

#include "engine/io/provenance.hpp"
#include "pipelines/app/runners.hpp"
#include "pipelines/app/registry.hpp"
#include "stages/common/lanes.hpp"
#include "tools/pipeline_cli/exit_codes.hpp"
#include "tools/pipeline_cli/interrupts.hpp"
#include "tools/pipeline_cli/progress_line.hpp"
#include "tools/pipeline_cli/ranks.hpp"
#include "tools/pipeline_cli/warnings.hpp"

namespace pacflow::cli {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The options every run shares with the spec's: the stop, provenance.
RunOptions cli_run_options(const app::JobSpec& spec, const InterruptWatch& interrupts,
                           const std::vector<std::string>& command_line) {
  RunOptions options = app::run_options(spec);
  options.stop = interrupts.token();
  options.provenance = collect_provenance(command_line, simd::simd_width());
  return options;
}

// What the user hears when a signal stopped the run; returns the exit code.
int interrupted(const InterruptWatch& interrupts, const RunCancelled& stop, const std::string& checkpoint) {
  const int signal = interrupts.signal();
  const std::string what = fmt::format("pacflow: interrupted by {} after {} batch{}", signal_name(signal),
                                       stop.batches_delivered(), stop.batches_delivered() == 1 ? "" : "es");
  if (checkpoint.empty())
    fmt::print(stderr, "{}; no output written (files of earlier runs are as they were)\n", what);
  else
    fmt::print(stderr, "{}; the checkpoint in {} keeps the finished batches: run the same command again to resume\n",
               what, checkpoint);
  return signal ? interrupted_exit_code(signal) : kRunFailed;
}

// A dataset stopped: nothing of it was committed.
// What a dataset's checkpoint keeps, for the message of a dataset that did not finish.
std::string kept_recordings(const std::filesystem::path& checkpoint) {
  if (checkpoint.empty()) return "";
  return fmt::format("; the checkpoint in {} keeps the recordings that finished: run the same command again to run "
                     "only the others",
                     checkpoint.string());
}

int dataset_interrupted(const InterruptWatch& interrupts, bool root, const std::filesystem::path& checkpoint) {
  const int signal = interrupts.signal();
  if (root)
    fmt::print(stderr, "pacflow: interrupted by {}; no output written: a dataset's files are committed together "
                       "when every recording is done (files of earlier runs are as they were){}\n",
               signal_name(signal), kept_recordings(checkpoint));
  return signal ? interrupted_exit_code(signal) : kRunFailed;
}

// A run's failure in a job of several ranks (mpirun, srun): rank 0 reports every error; another rank
// only its run's own (an error in planning, every rank meets alike), named by its rank. The whole job
// then ends with the exit code the error has alone, since the other ranks may be waiting for this one.
[[noreturn]] void fail_job(Ranks& ranks, const std::exception& error) {
  const int rank = ranks.link().rank();
  if (rank == 0 || dynamic_cast<const StageError*>(&error))
    fmt::print(stderr, "error: rank {}: {}\n", rank, error.what());
  std::fflush(stderr);
  const int code = caused_by_input(error) ? kBadInput : kRunFailed;
  ranks.abort_job(code);
  std::_Exit(code);  // not reached: abort_job ends the job
}

std::string over_ranks(Ranks* ranks) {
  return ranks ? fmt::format(" over {} ranks", ranks->link().size()) : std::string();
}

// The group test's outcome (pipelines/group/group_summary.hpp), a line per test.
void print_group(const std::optional<group::GroupReport>& group) {
  if (!group) return;
  for (const group::TestReport& t : group->tests)
    fmt::print("pacflow: {}: {} subjects, {} sign flips{}: {} cells below 0.05 by max-T, {} in clusters below 0.05 "
               "(smallest cluster p {:.3g}); the arrays {}_* in the stacked file\n",
               t.prefix == "group" ? "group test" : "group contrast", t.subjects, t.flips,
               t.exact ? " (every one)" : "", t.significant_cells_maxstat, t.significant_cells_cluster,
               t.best_cluster_p(), t.prefix);
}

// A dataset here: the pipeline once per recording, a line per recording (rank 0's own), the
// progress line counting the whole dataset.
int run_dataset_here(const app::Job& job, RunOptions& options, bool quiet, const InterruptWatch& interrupts,
                     Ranks* ranks, ProgressLine& progress) {
  const bool root = !ranks || ranks->link().rank() == 0;
  const auto start = Clock::now();
  auto last = start;
  const auto each = [&](const std::string& id, const json& r, const std::shared_ptr<stages::ResultArrays>&) {
    progress.done();
    if (root && !quiet)
      fmt::print("pacflow: recording {}: {} series in {:.3f} s\n", id, r["run"]["series"].get<std::int64_t>(),
                 seconds_since(last));
    std::fflush(stdout);
    last = Clock::now();
  };
  DatasetReport report;
  try {
    report = std::get<DatasetReport>(app::run_here(job, options, each));
  } catch (const RunCancelled&) {
    progress.done();
    return dataset_interrupted(interrupts, root, options.checkpoint);
  } catch (const RecordingFailed& e) {
    progress.done();
    // A recording's failure is its rank's alone: that rank says it (fail_job then ends the job).
    if (!root) fmt::print(stderr, "error: rank {}: {}\n", ranks->link().rank(), e.what());
    if (!ranks)  // one transaction: say so, as the interrupted run does
      std::throw_with_nested(RecordingFailed(fmt::format(
          "{}\nno output written: a dataset's files are committed together when every recording is done (files of "
          "earlier runs are as they were){}",
          e.what(), kept_recordings(options.checkpoint))));
    throw;
  }
  if (root) print_warnings(report.warnings);
  if (!root || quiet) return kOk;
  fmt::print("pacflow: dataset {}: {} recordings in {:.3f} s{}; each one's results in a folder named after it{}\n",
             report.dataset, report.recordings.size(), seconds_since(start), over_ranks(ranks),
             report.stacked ? fmt::format(", all stacked in {}", report.stacked->string()) : std::string());
  if (report.checkpoint && report.checkpoint->recordings > 0)
    fmt::print("pacflow: {} recordings taken from the checkpoint in {}\n", report.checkpoint->recordings,
               report.checkpoint->dir.string());
  print_group(report.group);
  return kOk;
}

// The run of one process: alone, or rank k of a job (rank 0 alone prints and writes).
int run_here(const app::JobSpec& spec, bool quiet, const std::vector<std::string>& command_line,
             const InterruptWatch& interrupts, Ranks* ranks) {
  const bool root = !ranks || ranks->link().rank() == 0;
  const app::Job job = app::load_job(spec, app::registry());
  RunOptions options = cli_run_options(spec, interrupts, command_line);
  if (ranks) options.ranks = &ranks->link();
  ProgressLine progress;
  if (!quiet && root) options.on_progress = [&progress](const Progress& p) { progress(p); };
  if (job.is_dataset()) return run_dataset_here(job, options, quiet, interrupts, ranks, progress);
  const auto start = Clock::now();
  RunReport report;
  try {
    report = std::get<RunReport>(app::run_here(job, options));
  } catch (const RunCancelled& stop) {
    progress.done();
    if (!root) return interrupts.signal() ? interrupted_exit_code(interrupts.signal()) : kRunFailed;
    return interrupted(interrupts, stop, spec.checkpoint);
  } catch (...) {
    progress.done();
    throw;
  }
  progress.done();
  if (!root) return kOk;  // rank 0 reports for the job
  print_warnings(report.plan.warnings);
  if (quiet) return kOk;
  const std::int64_t batches = report.run.batches;
  fmt::print("pacflow: {} series in {} batch{}{}, {:.3f} s; wrote {}\n", report.run.series, batches,
             batches == 1 ? "" : "es", over_ranks(ranks), seconds_since(start),
             fmt::join(app::output_locations(job.pipeline()), ", "));
  if (report.run.checkpoint && report.run.checkpoint->at_series > 0)
    fmt::print("pacflow: resumed from the checkpoint in {} at series {}\n", spec.checkpoint,
               report.run.checkpoint->at_series);
  return kOk;
}

// `run --shard i/N --out DIR`: share i of the run's batches, written into DIR for `merge`.
int shard_command(const app::JobSpec& spec, const RunFlags& flags, const std::vector<std::string>& command_line) {
  const InterruptWatch interrupts;
  const app::ShardSpec shard = app::ShardSpec::parse(flags.shard);
  if (launched_processes() > 1)
    throw InputError("--shard runs one share in one process; start it without mpirun or srun (or use the ranks "
                     "mpirun gives, without --shard)");
  app::ShardRun run;
  try {
    run = app::run_shard(spec, shard, cli_run_options(spec, interrupts, command_line), app::registry());
  } catch (const RunCancelled& stop) {
    return interrupted(interrupts, stop, "");
  }
  print_warnings(app::warnings_of(run.report));
  if (flags.quiet) return kOk;
  if (const auto* dataset = std::get_if<DatasetReport>(&run.report)) {
    fmt::print("pacflow: shard {}/{}: {} of the dataset's recordings in {}; then: pipeline_cli merge OUT {} …\n",
               shard.index, shard.count, dataset->recordings.size(), spec.out_dir, spec.out_dir);
  } else {
    const std::int64_t batches = std::get<RunReport>(run.report).run.batches;
    fmt::print("pacflow: shard {}/{}: batches {}, {} + {}, … of {} in {}; then: pipeline_cli merge OUT {} …\n",
               shard.index, shard.count, shard.index, shard.index, shard.count, batches, spec.out_dir, spec.out_dir);
  }
  return kOk;
}

}  // namespace

int run_command(const app::JobSpec& spec, const RunFlags& flags, const std::vector<std::string>& command_line) {
  if (flags.sharded) return shard_command(spec, flags, command_line);
  const InterruptWatch interrupts;                   // first: before any thread starts
  const std::unique_ptr<Ranks> ranks = start_ranks();  // after: MPI's threads inherit the blocked signals
  if (!ranks) return run_here(spec, flags.quiet, command_line, interrupts, nullptr);
  try {
    const int code = run_here(spec, flags.quiet, command_line, interrupts, ranks.get());
    if (code != kOk) ranks->abort_job(code);  // interrupted: the other ranks stop with it
    return code;
  } catch (const std::exception& e) {
    fail_job(*ranks, e);
  }
}

int merge_command(const std::string& out, const std::vector<std::string>& shard_dirs, bool quiet,
                  const std::vector<std::string>& command_line) {
  const InterruptWatch interrupts;
  RunOptions options;
  options.stop = interrupts.token();
  options.provenance = collect_provenance(command_line, simd::simd_width());
  app::MergeRun merged;
  try {
    merged = app::merge_shards({shard_dirs.begin(), shard_dirs.end()}, out, options, app::registry());
  } catch (const RunCancelled& stop) {
    return interrupted(interrupts, stop, "");
  }
  print_warnings(app::warnings_of(merged.report));
  if (quiet) return kOk;
  if (const auto* dataset = std::get_if<DatasetReport>(&merged.report))
    fmt::print("pacflow: merged {} shards of dataset {}: {} recordings' folders into {}{}\n", merged.shards,
               dataset->dataset, dataset->recordings.size(), out,
               dataset->stacked ? fmt::format(", stacked in {}", dataset->stacked->string()) : std::string());
  else
    fmt::print("pacflow: merged {} shards, {} batches; wrote {}\n", merged.shards,
               std::get<RunReport>(merged.report).run.batches, fmt::join(merged.outputs, ", "));
  return kOk;
}

}  // namespace pacflow::cli
