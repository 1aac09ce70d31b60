#!/usr/bin/env bash
# Job arrays without MPI: `run --shard i/N` for every i, in any order, then `merge`, writes what one
# run writes (tests/mpi/same_outputs.sh), for N = 1, 2, 3 and 5; merging refuses a missing shard, a
# shard given twice, a shard of another run and a shard cut short, with exit code 2 and no output.
#   tests/mpi/shards_merge.sh PIPELINE_CLI PIPE [RUN OPTIONS...]
set -euo pipefail
cli=$1 pipe=$2
shift 2
options=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cli" run -q --out "$work/out" "${options[@]}" "$pipe"
mv "$work/out" "$work/single"
for n in 1 2 3 5; do
  shards=()
  for ((i = n - 1; i >= 0; i--)); do  # the last first: order does not matter
    "$cli" run -q --shard "$i/$n" --out "$work/shard$i" "${options[@]}" "$pipe"
    shards+=("$work/shard$i")
  done
  "$cli" merge -q "$work/out" "${shards[@]}"
  bash "$(dirname "$0")/same_outputs.sh" "$work/single" "$work/out"
  echo "$(basename "$pipe") in $n shards, merged: $(ls "$work/single" | wc -l) files as one run writes them"
  rm -rf "$work/out"
  [[ $n == 5 ]] || rm -rf "$work"/shard*
done
refused() {  # EXPECTED_MESSAGE SHARD...
  local message=$1
  shift
  set +e
  "$cli" merge -q "$work/refused" "$@" 2> "$work/stderr"
  local code=$?
  set -e
  [[ $code == 2 ]] || { echo "merge $*: exit $code, not 2" >&2; exit 1; }
  grep -q "$message" "$work/stderr" || { echo "merge $*: said $(cat "$work/stderr")" >&2; exit 1; }
  [[ ! -e $work/refused ]] || { echo "merge $*: wrote $work/refused" >&2; exit 1; }
}
refused "shard 2/5 is missing" "$work"/shard0 "$work"/shard1 "$work"/shard3 "$work"/shard4
refused "shard 1/5 is given twice" "$work"/shard{0,1,1,2,3,4}
mkdir "$work/empty"
refused "holds no finished shard" "$work/empty"
"$cli" run -q --shard 3/5 --out "$work/other" "${options[@]}" --set source.seed=99 "$pipe"
refused "shards of different runs" "$work"/shard{0,1,2} "$work/other" "$work/shard4"
head -c 100 "$work/shard2/batches.bin" > "$work/cut" && mv "$work/cut" "$work/shard2/batches.bin"
refused "batches.bin: damaged" "$work"/shard{0,1,2,3,4}
echo "merge refuses missing, repeated, unfinished, foreign and cut shards"
# validate -n: what each rank or shard needs
"$cli" validate -n 3 "${options[@]}" "$pipe" | grep -q "^ranks: each of 3 computes at most" ||
  { echo "validate -n 3 says nothing of the ranks" >&2; exit 1; }
