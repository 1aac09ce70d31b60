#!/usr/bin/env bash
# The SLURM job-array recipes (pipelines/slurm) run as SLURM would run them (its variables set by
# hand, one task after another), and their merge writes one run's files; the MPI recipe is valid bash.
#   tests/mpi/slurm_recipes.sh PIPELINE_CLI PIPE
set -euo pipefail
cli=$1 pipe=$2
here=$(cd "$(dirname "$0")" && pwd)
recipes=$here/../../pipelines/slurm
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cli" run -q --out "$work/results" --batch 16 "$pipe"  # the same folder as the recipes' (result.json names it)
mv "$work/results" "$work/single"
for task in 2 0 1; do
  SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_COUNT=3 PACFLOW_CLI=$cli \
    bash "$recipes/shards_array.sbatch" "$pipe" "$work/results" --batch 16
done
PACFLOW_CLI=$cli bash "$recipes/merge_shards.sbatch" "$pipe" "$work/results" > /dev/null
rm -rf "$work/results/shards"
bash "$here/same_outputs.sh" "$work/single" "$work/results"
bash -n "$recipes/mpi_gpus.sbatch"
echo "the job-array recipes wrote one run's files"
