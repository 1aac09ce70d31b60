#pragma once
// How a job runs (issue 37), whoever asked (the CLI, Python): in this process, alone or as one rank
// of a job mpirun or srun started; as one shard of a job array; or as the merge of the shards. Each
// returns the run's report and lets RunCancelled (a stop) and errors through: what the user hears
// about them is the front end's.
#include <filesystem>
#include <string>
#include <vector>

#include "pipelines/app/job.hpp"
#include "pipelines/app/shards.hpp"

namespace pacflow::app {

// The job in this process; options.ranks makes it one rank of several. A trace file
// (options.trace_file) is recorded and written with the outputs; a dataset refuses one (it runs once
// per recording). `each` hears every recording of a dataset this process runs.
JobReport run_here(const Job& job, RunOptions options, const RecordingResults& each = {});

// Share `shard` of the job `spec` describes (its batches i, i + N, …; a dataset's recordings i, i + N,
// …), written with the job's record into spec.out_dir for merge_shards. The pipeline is loaded by its
// file's absolute path, as the merge loads it. Refuses a spec without out_dir, or with a checkpoint,
// a trace or clean (a shard writes only its share, into its folder).
struct ShardRun {
  JobReport report;
  bool dataset = false;
};
ShardRun run_shard(const JobSpec& spec, const ShardSpec& shard, RunOptions options, const Registry& registry);

// Every shard's batches (or a dataset's recordings), in index order, through the job's summaries
// and sinks into `out`: the files one run writes, committed together. options.batch_size is the
// shards' own; the rest of `options` (stop, provenance) is the caller's.
struct MergeRun {
  JobReport report;
  bool dataset = false;
  int shards = 0;
  std::vector<std::string> outputs;  // where the sinks wrote
};
MergeRun merge_shards(const std::vector<std::filesystem::path>& dirs, const std::string& out, RunOptions options,
                      const Registry& registry);

// Where a job's sinks write, read from their output parameters.
std::vector<std::string> output_locations(const Pipeline& pipeline);

}  // namespace pacflow::app
