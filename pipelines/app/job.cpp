#include "pipelines/app/job.hpp"

namespace pacflow::app {

Job::Job(Pipeline pipeline)
    : pipeline_(std::move(pipeline)), kind_(pacflow::is_dataset(pipeline_) ? JobKind::Dataset : JobKind::Stream) {}

json Job::run(const RunOptions& options, const RecordingResults& each, const BeforeCommit& before_commit) const {
  if (is_dataset()) return run_dataset(pipeline_, options, each, before_commit);
  return pipeline_.run(options);
}

json Job::validate(const RunOptions& options) const {
  return is_dataset() ? validate_dataset(pipeline_, options) : pipeline_.validate(options);
}

Job load_job(const JobSpec& spec, const Registry& registry) { return Job(load_pipeline(spec, registry)); }

}  // namespace pacflow::app
