#include <cstdlib>
#include <string>

#include "tools/pipeline_cli/ranks.hpp"

namespace pacflow::cli {

int launched_processes() {
  // mpirun (Open MPI), PMI launchers (MPICH's hydra, srun --mpi=pmi2) and srun itself.
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_STEP_NUM_TASKS"}) {
    const char* value = std::getenv(variable);
    if (value == nullptr) continue;
    try {
      const int n = std::stoi(value);
      if (n > 0) return n;
    } catch (const std::exception&) {
    }
  }
  return 1;
}

}  // namespace pacflow::cli
