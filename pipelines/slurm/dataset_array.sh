#!/usr/bin/env bash
# A dataset (a pipeline whose source is a manifest: one recording per row) as a SLURM job array, one
# task per recording: checks the dataset (every file, every recording's pipeline), then submits
# shards_array.sbatch over as many tasks as recordings and merge_shards.sbatch after them, which
# copies every recording's folder into OUT and stacks their results in OUT's recordings.h5.
#
#   pipelines/slurm/dataset_array.sh dataset.pipe results [--max-tasks 64] [RUN OPTIONS...]
#
# --max-tasks caps the array (each task then takes every M-th recording, whole). --dry-run prints
# the sbatch commands instead of running them. Size --mem and --time from the validate lines this
# prints: a task needs the memory of its largest recording, for about the time of its recordings.
set -euo pipefail
pipe=${1:?usage: dataset_array.sh PIPE OUT [--max-tasks M] [--dry-run] [RUN OPTIONS...]}
out=${2:?usage: dataset_array.sh PIPE OUT [--max-tasks M] [--dry-run] [RUN OPTIONS...]}
shift 2
max_tasks=1000 dry_run=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --max-tasks) max_tasks=${2:?--max-tasks takes a number}; shift 2 ;;
    --dry-run) dry_run=echo; shift ;;
    *) break ;;
  esac
done
cli=${PACFLOW_CLI:-build/bin/pipeline_cli}
here=$(cd "$(dirname "$0")" && pwd)
report=$("$cli" validate "$pipe")
echo "$report"
recordings=$(sed -n 's/.*: ok: a dataset of \([0-9]*\) recordings.*/\1/p' <<< "$report")
[[ -n $recordings ]] || { echo "$pipe: not a dataset (its source is not a manifest); use shards_array.sbatch" >&2; exit 2; }
tasks=$((recordings < max_tasks ? recordings : max_tasks))
submit=(${dry_run} sbatch --parsable)
jid=$("${submit[@]}" --array=0-$((tasks - 1)) "$here/shards_array.sbatch" "$pipe" "$out" "$@")
[[ -n $dry_run ]] && { echo "$jid"; jid=JOBID; }
${dry_run} sbatch --dependency=afterok:"$jid" "$here/merge_shards.sbatch" "$pipe" "$out"
