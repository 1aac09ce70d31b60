#!/usr/bin/env bash
# One pipeline run by mpirun over 1, 2, 3 and 4 ranks writes what a single process writes
# (tests/mpi/same_outputs.sh says how the files are compared).
#   tests/mpi/ranks_bytes.sh PIPELINE_CLI MPIRUN PIPE [RUN OPTIONS...]
set -euo pipefail
cli=$1 mpirun=$2 pipe=$3
shift 3
options=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# As root (CI), Open MPI wants --allow-run-as-root; --oversubscribe: more ranks than these 2 cores.
# --bind-to none: each rank may use every core, as one process does (Open MPI binds one rank per core
# by default when there are no more ranks than cores).
launch=("$mpirun" --allow-run-as-root --oversubscribe --bind-to none)
# Every run writes into the same folder (result.json names it), moved aside to be compared.
"$cli" run -q --out "$work/out" "${options[@]}" "$pipe"
mv "$work/out" "$work/single"
# Rings between pinned stages re-cut batches in one process; over ranks every segment takes one
# batch size, which result.json's `segments` shows.
rings=$(python3 -c 'import json,sys; print("other_batches" if len(json.load(open(sys.argv[1]))["segments"]) > 1 else "")' \
  "$work/single/result.json")
for n in 1 2 3 4; do
  "${launch[@]}" -n "$n" "$cli" run -q --out "$work/out" "${options[@]}" "$pipe"
  bash "$(dirname "$0")/same_outputs.sh" "$work/single" "$work/out" $rings
  # result.json states where each rank ran: all on this one node, so local rank = rank (mpirun -n 1
  # starts one process as if alone).
  python3 - "$work/out/result.json" "$n" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["run"]
n = int(sys.argv[2])
placed = run.get("rank_devices", [])
assert n == 1 and not placed or run["ranks"] == n and [p["rank"] for p in placed] == list(range(n)), run
assert all(p["local_rank"] == p["rank"] and p["host"] and p["stages"] for p in placed), placed
PY
  echo "$(basename "$pipe") over $n ranks: $(ls "$work/single" | wc -l) files as one process writes them"
  rm -rf "$work/out"
done
