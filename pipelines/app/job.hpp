#pragma once
// A job (issue 37): a pipeline and what kind of run it makes, chosen once. A stream runs the pipeline
// over its input's batches (Pipeline::run); a dataset, a pipeline whose source is a manifest, runs it
// once per recording (pipelines/dataset_run.hpp). Every run mode (alone, over ranks, as a shard, a
// merge; pipelines/app/runners.hpp) and every front end (the CLI, Python) goes through it.
#include <variant>

#include "engine/api/pipeline.hpp"
#include "engine/api/run_report.hpp"
#include "pipelines/app/job_spec.hpp"
#include "pipelines/dataset_run.hpp"

namespace pacflow::app {

enum class JobKind { Stream, Dataset };

// What validate() found: a stream's plan, or every recording's of a dataset.
using JobPlan = std::variant<Plan, DatasetPlan>;
json to_json(const JobPlan& plan);

// What run() did: a stream's report, or a dataset's.
using JobReport = std::variant<RunReport, DatasetReport>;
json to_json(const JobReport& report);
const std::vector<std::string>& warnings_of(const JobReport& report);

class Job {
 public:
  explicit Job(Pipeline pipeline);
  JobKind kind() const { return kind_; }
  bool is_dataset() const { return kind_ == JobKind::Dataset; }
  Pipeline& pipeline() { return pipeline_; }
  const Pipeline& pipeline() const { return pipeline_; }

  // Runs the job: a stream's report, or a dataset's (its recordings; `each` hears every recording this
  // process runs, `before_commit` adds files to the dataset's commit). A stream takes neither.
  JobReport run(const RunOptions& options, const RecordingResults& each = {}, const BeforeCommit& before_commit = {}) const;
  // Checks it without running: a stream's plan, or every recording's (validate_dataset).
  JobPlan validate(const RunOptions& options) const;

 private:
  Pipeline pipeline_;
  JobKind kind_;
};

// The job `spec` describes, over `registry` (which must outlive it).
Job load_job(const JobSpec& spec, const Registry& registry);

}  // namespace pacflow::app
