#pragma once
// What to run (issue 37): one description of a job, whoever asks for it. The CLI fills it from its
// options, the Python module from pacflow.run's arguments, a shard's record keeps it for the merge;
// each is turned into a pipeline and its run options here, once.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/api/pipeline.hpp"
#include "pipelines/pipe_format.hpp"

namespace pacflow::app {

struct JobSpec {
  // The pipeline: a .pipe file (empty when the elements come from elsewhere, as Python's builder),
  // then overrides, as text (`--set NAME.key=value`, parsed by parse_set_override, the one grammar
  // of the CLI, `python -m pacflow` and shard records) or already typed (Python's set={...}).
  std::filesystem::path pipe_file;
  std::vector<std::string> sets;
  std::vector<SetOverride> typed_sets;
  // Placement: the device pool for stages without on= (a CPU pool makes a CPU-only run), the
  // fallback when no GPU is visible, the memory budget on every GPU.
  std::string devices, fallback, vram;
  // Policy: series per batch and batches in flight (0: chosen), the refusal above an estimated
  // memory, a modelled accelerator's figures for sim devices.
  std::int64_t batch = 0;
  int in_flight = 0;
  std::string max_memory;
  std::string sim_model;
  // Outputs: a folder every sink writes into instead, a checkpoint folder, a trace file, and whether
  // an earlier run's files this one does not write are removed.
  std::string out_dir;
  std::string checkpoint;
  std::string trace;
  bool clean = false;
};

// Loads the spec's file into `pipeline` (which may hold elements already), applies its overrides
// and placement, and redirects the sinks into out_dir when given. Throws InputError naming the
// file or the override.
void build_pipeline(const JobSpec& spec, Pipeline& pipeline);
Pipeline load_pipeline(const JobSpec& spec, const Registry& registry);

// The run options the spec asks for (batch, in-flight, memory limit, sim model, checkpoint, clean,
// trace file). `spelling` names the options in errors as the caller's user wrote them:
// OptionSpelling::Cli says "--max-memory", Python "max_memory".
enum class OptionSpelling { Cli, Python };
RunOptions run_options(const JobSpec& spec, OptionSpelling spelling = OptionSpelling::Cli);

// The part of a spec a shard's record keeps, for the merge to make the same pipeline again (its
// file's path absolute), as JSON, and back; job_from_record throws std::exception on a bad record.
json job_record(const JobSpec& spec);
JobSpec job_from_record(const json& record);

}  // namespace pacflow::app
