#include "pipelines/app/job.hpp"

namespace pacflow::app {

Job::Job(Pipeline pipeline)
    : pipeline_(std::move(pipeline)), kind_(pacflow::is_dataset(pipeline_) ? JobKind::Dataset : JobKind::Stream) {}

JobReport Job::run(const RunOptions& options, const RecordingResults& each, const BeforeCommit& before_commit) const {
  if (is_dataset()) return run_dataset(pipeline_, options, each, before_commit);
  return pipeline_.run(options);
}

JobPlan Job::validate(const RunOptions& options) const {
  if (is_dataset()) return validate_dataset(pipeline_, options);
  return pipeline_.validate(options);
}

json to_json(const JobPlan& plan) {
  return std::visit([](const auto& p) { return p.to_json(); }, plan);
}

json to_json(const JobReport& report) {
  return std::visit([](const auto& r) { return r.to_json(); }, report);
}

const std::vector<std::string>& warnings_of(const JobReport& report) {
  if (const auto* dataset = std::get_if<DatasetReport>(&report)) return dataset->warnings;
  return std::get<RunReport>(report).plan.warnings;
}

Job load_job(const JobSpec& spec, const Registry& registry) { return Job(load_pipeline(spec, registry)); }

}  // namespace pacflow::app
