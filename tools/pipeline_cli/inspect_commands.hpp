#pragma once
// The commands that look at a job without running it: validate (the checked plan, memory and time
// estimates, what each of N ranks needs), graph (Graphviz DOT), devices, stages.
#include <cstdint>
#include <string>

#include "pipelines/app/job_spec.hpp"

namespace pacflow::cli {

struct ValidateFlags {
  int ranks = 1;
  bool json = false;  // the plan as JSON, for scripts
};

// Each returns the exit code; throws on errors (main reports them).
int validate_command(const app::JobSpec& spec, const ValidateFlags& flags);
int graph_command(const app::JobSpec& spec, const std::string& output);
int devices_command();
int stages_command(const std::string& name);

}  // namespace pacflow::cli
