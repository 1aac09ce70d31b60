#pragma once
// pipeline_cli as one of several processes (issue 20): started by mpirun or srun, each process is a
// rank of one run (engine/api/rank_link.hpp). Built with MPI (PACFLOW_MPI), `start_ranks` joins the
// job when the launcher's variables say there is one; built without, it refuses to run as one of
// several processes, each of which would compute and write the whole run.
#include <memory>
#include <string>

#include "engine/api/rank_link.hpp"

namespace pacflow::cli {

// The job this process belongs to, for the process's lifetime (MPI is finalised with it).
class Ranks {
 public:
  virtual ~Ranks() = default;
  virtual RankLink& link() = 0;
  // Ends the whole job at once with `exit_code` (a rank failed: the others may be waiting for it).
  [[noreturn]] virtual void abort_job(int exit_code) = 0;
};

// The job when the process was started as one of several (mpirun, srun), else null. Throws
// InputError when it was, but this build has no MPI.
// Call it after InterruptWatch: MPI's own threads then inherit the blocked signals.
std::unique_ptr<Ranks> start_ranks();

// How many processes the launcher started, from its variables (Open MPI's, PMI's, SLURM's); 1 when
// none says.
int launched_processes();

}  // namespace pacflow::cli
