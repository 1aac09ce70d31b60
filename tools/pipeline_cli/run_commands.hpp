#pragma once
// `run` (here, over ranks, or as a shard) and `merge`: the run modes of pipelines/app/runners.hpp,
// with what the user hears: progress, warnings, a summary line, and how a stop or a failure ended.
#include <string>
#include <vector>

#include "pipelines/app/job_spec.hpp"

namespace pacflow::cli {

struct RunFlags {
  bool sharded = false;  // --shard given (even as "")
  std::string shard;     // --shard i/N
  bool quiet = false;
};

// Returns the exit code; throws on errors (main reports them).
int run_command(const app::JobSpec& spec, const RunFlags& flags, const std::vector<std::string>& command_line);
int merge_command(const std::string& out, const std::vector<std::string>& shard_dirs, bool quiet,
                  const std::vector<std::string>& command_line);

}  // namespace pacflow::cli
