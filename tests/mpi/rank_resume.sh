#!/usr/bin/env bash
# --checkpoint over ranks. Rank 0 alone keeps the checkpoint (the batches it delivered, in index
# order), so a job killed on 3 ranks resumes on 2 and then writes the bytes of a run never stopped.
# And a rank that planned another run than rank 0 (another seed, through mpirun's MPMD form: a file
# that differs between nodes, in life) stops the job before any batch, with exit code 2, named.
#   tests/mpi/rank_resume.sh PIPELINE_CLI MPIRUN PIPE
set -euo pipefail
cli=$1 mpirun=$2 pipe=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
launch=("$mpirun" --allow-run-as-root --oversubscribe --bind-to none)
options=(run --batch 64 --set surrogates.trials=none --set surrogates.n=100 --out "$work/out")
"$cli" "${options[@]}" -q "$pipe"
mv "$work/out" "$work/single"

"${launch[@]}" -n 3 "$cli" "${options[@]}" -q --checkpoint "$work/ck" "$pipe" > "$work/log" 2>&1 &
job=$!
done_series() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["series_done"])' "$1" 2>/dev/null || echo 0; }
for _ in $(seq 600); do  # until rank 0 has recorded a batch
  [[ -f $work/ck/checkpoint.json ]] && (($(done_series "$work/ck/checkpoint.json") > 0)) && break
  sleep 0.02
done
for pid in $(pgrep -f -- "--out $work/out" || true); do  # rank 0: the pipeline_cli whose environment says so
  if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=0"; then kill -9 "$pid"; fi
done
set +e
wait "$job"
code=$?
set -e
[[ $code == 137 ]] || { cat "$work/log"; echo "mpirun exited with $code, not 137 (rank 0 killed)" >&2; exit 1; }
recorded=$(done_series "$work/ck/checkpoint.json")
((recorded > 0)) || { echo "the checkpoint recorded nothing" >&2; exit 1; }
for _ in $(seq 100); do  # the job's processes may outlive mpirun by a moment
  pgrep -f -- "--out $work/out" > /dev/null || break
  sleep 0.1
done

"${launch[@]}" -n 2 "$cli" "${options[@]}" --checkpoint "$work/ck" "$pipe" > "$work/log" 2>&1 ||
  { cat "$work/log"; echo "the resumed job failed" >&2; exit 1; }
grep -q "resumed from the checkpoint in $work/ck at series $recorded" "$work/log" ||
  { cat "$work/log"; echo "the job on 2 ranks did not resume at series $recorded" >&2; exit 1; }
bash "$(dirname "$0")/same_outputs.sh" "$work/single" "$work/out" other_batches
[[ ! -e $work/ck/checkpoint.json ]] || { echo "the checkpoint outlived the finished run" >&2; exit 1; }
echo "killed on 3 ranks at series $recorded, resumed on 2: the uninterrupted run's bytes"

rm -rf "$work/out"
set +e
"${launch[@]}" -n 1 "$cli" "${options[@]}" -q "$pipe" : -n 1 "$cli" "${options[@]}" -q --set source.seed=2 "$pipe" \
  2> "$work/stderr"
code=$?
set -e
cat "$work/stderr"
[[ $code == 2 ]] || { echo "mpirun exited with $code, not 2" >&2; exit 1; }
grep -q "rank 1 planned another run than rank 0: its input (or its checksum) differs" "$work/stderr" ||
  { echo "the error does not name rank 1 and its input" >&2; exit 1; }
[[ ! -d $work/out ]] || [[ -z $(ls "$work/out") ]] || { echo "outputs appeared" >&2; exit 1; }
echo "a rank planning another run stopped the job before any batch"
