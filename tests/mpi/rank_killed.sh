#!/usr/bin/env bash
# A rank killed mid-run (SIGKILL) ends the job: mpirun reports the killed rank and exits with 128 + 9
# (as a killed pipeline_cli does), and no output appears. Rank 0 stops on the SIGTERM mpirun sends it,
# or, caught inside a transfer from the dead rank, is killed in turn: then, as after any killed run,
# only hidden temporaries are left, which the next run into the folder removes.
#   tests/mpi/rank_killed.sh PIPELINE_CLI MPIRUN PIPE
set -euo pipefail
cli=$1 mpirun=$2 pipe=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$mpirun" --allow-run-as-root --oversubscribe --bind-to none -n 2 "$cli" run -q --batch 64 \
  --set surrogates.trials=none --out "$work/out" "$pipe" > "$work/log" 2>&1 &
job=$!
rank1=""
for _ in $(seq 200); do  # rank 1: the pipeline_cli whose environment says so
  for pid in $(pgrep -f -- "--out $work/out" || true); do
    if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1"; then rank1=$pid; fi
  done
  [[ -n $rank1 ]] && break
  sleep 0.05
done
[[ -n $rank1 ]] || { echo "rank 1 never started" >&2; cat "$work/log" >&2; exit 1; }
sleep 1.5  # well into the run
kill -9 "$rank1"
set +e
wait "$job"
code=$?
set -e
cat "$work/log"
[[ $code == 137 ]] || { echo "mpirun exited with $code, not 137" >&2; exit 1; }
grep -q "rank 1" "$work/log" || { echo "mpirun did not name rank 1" >&2; exit 1; }
if [[ -d $work/out ]] && [[ -n $(ls "$work/out") ]]; then
  echo "outputs appeared: $(ls "$work/out")" >&2
  exit 1
fi
for _ in $(seq 100); do  # the job's processes may outlive mpirun by a moment
  pgrep -f -- "--out $work/out" > /dev/null || break
  sleep 0.1
done
"$cli" run -q --batch 64 --set surrogates.trials=none --set source.epochs=8 --out "$work/out" "$pipe"
leftovers=$(ls -A "$work/out" | grep '^\.' | grep -v '^\.pacflow.lock$' || true)
[[ -z $leftovers ]] || { echo "the next run left: $leftovers" >&2; exit 1; }
echo "killing rank 1 ended the job with 137, no output; the next run cleared what rank 0 left"
