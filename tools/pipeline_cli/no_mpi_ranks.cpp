// start_ranks in a build without MPI: one process, or a clear refusal.
#include <fmt/format.h>

#include "engine/api/errors.hpp"
#include "tools/pipeline_cli/ranks.hpp"

namespace pacflow::cli {

std::unique_ptr<Ranks> start_ranks() {
  if (const int n = launched_processes(); n > 1)
    throw InputError(fmt::format("started as one of {} processes (mpirun or srun), but this pipeline_cli was built "
                                 "without MPI: each process would compute and write the whole run; build it with "
                                 "Open MPI installed (libopenmpi-dev, -DPACFLOW_MPI=ON), or start one process",
                                 n));
  return nullptr;
}

}  // namespace pacflow::cli
