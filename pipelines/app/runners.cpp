#include "pipelines/app/runners.hpp"

#include "engine/api/errors.hpp"
#include "engine/api/trace.hpp"
#include "engine/io/output_set.hpp"

namespace pacflow::app {

JobReport run_here(const Job& job, RunOptions options, const RecordingResults& each) {
  // The trace is one of the run's outputs: checked, and moved into place with the sinks' files.
  TraceRecorder trace;
  if (!options.trace_file.empty()) {
    if (job.is_dataset())
      throw InputError("a trace (--trace, trace=): a dataset runs once per recording; trace one recording's pipeline "
                       "instead");
    options.trace = &trace;
  }
  return job.run(options, each);
}

ShardRun run_shard(const JobSpec& spec, const ShardSpec& shard, RunOptions options, const Registry& registry) {
  if (spec.out_dir.empty()) throw InputError("--shard: name the shard's folder with --out");
  if (!spec.checkpoint.empty() || !spec.trace.empty() || spec.clean)
    throw InputError("--shard: a shard writes only its batches, into its folder: --checkpoint, --trace and --clean "
                     "do not apply (a shard stopped midway is run again from its start)");
  // Loaded by its absolute path, as the merge loads it: the paths in the file resolve alike. The
  // sinks are not redirected: only a dataset's recordings' folders go into the shard's.
  JobSpec absolute = spec;
  absolute.pipe_file = std::filesystem::absolute(spec.pipe_file).lexically_normal();
  absolute.out_dir.clear();
  Job job = load_job(absolute, registry);
  ShardWriter writer(shard, spec.out_dir, absolute);
  options.ranks = &writer;
  if (!job.is_dataset()) {
    ShardRun run{job.run(options), false};
    writer.commit();
    return run;
  }
  // A dataset's recordings' folders, batches.bin and shard.json are committed together.
  job.pipeline().redirect_outputs(spec.out_dir);
  return {job.run(options, {}, [&](const DatasetReport&, OutputSet& outputs) { writer.add_to(outputs); }), true};
}

MergeRun merge_shards(const std::vector<std::filesystem::path>& dirs, const std::string& out, RunOptions options,
                      const Registry& registry) {
  ShardReader shards(dirs, options.stop);
  JobSpec spec = shards.recipe();
  spec.out_dir = out;
  const Job job = load_job(spec, registry);
  options.batch_size = spec.batch;
  options.ranks = &shards;
  MergeRun merged;
  merged.dataset = job.is_dataset();
  merged.shards = shards.size();
  merged.outputs = output_locations(job.pipeline());
  // A dataset's merge: the recordings' arrays from every shard stacked into OUT's stacked file, and
  // every file a shard lists (its recordings' folders), checked, copied into OUT, all committed
  // together: a shard missing, damaged or edited leaves OUT as it was.
  merged.report = job.run(options, {}, [&](const DatasetReport&, OutputSet& outputs) {
    for (int i = 0; i < shards.size(); ++i) add_checked_copies(shards, i, out, outputs, options.stop);
  });
  return merged;
}

std::vector<std::string> output_locations(const Pipeline& pipeline) {
  std::vector<std::string> out;
  for_each_output(pipeline.elements(), pipeline.registry(),
                  [&](const ElementSpec&, const ParamSpec&, const std::string& value) { out.push_back(value); });
  return out;
}

}  // namespace pacflow::app
