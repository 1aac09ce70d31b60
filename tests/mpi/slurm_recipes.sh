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

# A dataset as a job array, one task per recording: the recordings' folders and the stacked file as
# one process writes them; dataset_array.sh sizes the array by the table.
mkdir "$work/data"
/usr/bin/python3 - "$work/data" <<'PY'
import sys
import numpy as np
for k, samples in enumerate((1024, 1536, 1024)):
    np.save(f"{sys.argv[1]}/r{k}.npy", np.random.default_rng(k).standard_normal((2, 2, samples)).astype(np.float32))
PY
printf 'id\tpath\tfs\nr0\tr0.npy\t256\nr1\tr1.npy\t256\nr2\tr2.npy\t512\n' > "$work/data/table.tsv"
printf 'source manifest path=table.tsv\nstage bandpass pha=8:12:2 amp=60:90:2\nstage hilbert\nstage mi\nsink npy dir=out\n' \
  > "$work/data/dataset.pipe"
"$cli" run -q --out "$work/dataset_single" "$work/data/dataset.pipe"
for task in 1 2 0; do
  SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_COUNT=3 PACFLOW_CLI=$cli \
    bash "$recipes/shards_array.sbatch" "$work/data/dataset.pipe" "$work/dataset"
done
PACFLOW_CLI=$cli bash "$recipes/merge_shards.sbatch" "$work/data/dataset.pipe" "$work/dataset" > /dev/null
for file in $(cd "$work/dataset_single" && find . -name '*.npy'); do
  cmp -s "$work/dataset_single/$file" "$work/dataset/$file" || { echo "$file differs after the job array" >&2; exit 1; }
done
mkdir "$work/stacked_single" "$work/stacked_array"
cp "$work/dataset_single/recordings.h5" "$work/stacked_single/"
cp "$work/dataset/recordings.h5" "$work/stacked_array/"
bash "$here/same_outputs.sh" "$work/stacked_single" "$work/stacked_array"
planned=$(PACFLOW_CLI=$cli bash "$recipes/dataset_array.sh" "$work/data/dataset.pipe" "$work/results2" --dry-run)
grep -q -- "--array=0-2 .*shards_array.sbatch" <<< "$planned" ||
  { echo "$planned"; echo "dataset_array.sh does not submit one task per recording" >&2; exit 1; }
planned=$(PACFLOW_CLI=$cli bash "$recipes/dataset_array.sh" "$work/data/dataset.pipe" "$work/results2" --max-tasks 2 --dry-run)
grep -q -- "--array=0-1 " <<< "$planned" || { echo "$planned"; echo "--max-tasks 2 not obeyed" >&2; exit 1; }
echo "a dataset as a job array, one task per recording, wrote one process's files"
