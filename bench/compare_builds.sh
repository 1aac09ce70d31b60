#!/usr/bin/env bash
# Compares two builds of pipeline_cli side by side, as issue 18 asks of a refactoring ("nothing else
# changes"): runs them interleaved (old, new, old, new, …) on each workload so that the machine's
# drift hits both alike, prints each one's median wall time, and checks that every array they write
# is byte-identical.
# Usage: bench/compare_builds.sh OLD_CLI NEW_CLI [RUNS] [PIPE...]   (from the repository root)
#   default RUNS 5, default PIPEs pipelines/bench/w1.pipe pipelines/bench/w2.pipe
# An old build: git worktree add /tmp/old <commit> && (cd /tmp/old && cmake --preset default &&
#   cmake --build build --target pipeline_cli); then OLD_CLI is /tmp/old/build/bin/pipeline_cli.
# Exit code 1 when any array differs.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 2 ]] || { sed -n '2,11p' "$0" >&2; exit 2; }
old=$1 new=$2 runs=${3:-5}
shift 2; shift || true
pipes=("$@")
[[ ${#pipes[@]} -gt 0 ]] || pipes=(pipelines/bench/w1.pipe pipelines/bench/w2.pipe)
for cli in "$old" "$new"; do [[ -x $cli ]] || { echo "not an executable: $cli" >&2; exit 2; }; done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

seconds() {  # CLI PIPE DIR: one quiet run's wall time
  local start=$EPOCHREALTIME
  "$1" run -q --out "$3" "$2" > /dev/null
  awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", b - a }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

status=0
echo "<!-- $(date -I), $(nproc) CPUs, interleaved runs: $runs each -->"
echo "| pipeline | old median | new median | new / old | arrays |"
echo "| --- | --- | --- | --- | --- |"
for pipe in "${pipes[@]}"; do
  name=$(basename "$pipe" .pipe)
  : > "$out/old.t"
  : > "$out/new.t"
  for ((i = 0; i < runs; i++)); do
    seconds "$old" "$pipe" "$out/old" >> "$out/old.t"
    seconds "$new" "$pipe" "$out/new" >> "$out/new.t"
  done
  a=$(median < "$out/old.t") b=$(median < "$out/new.t")
  same=0 differ=()
  for f in "$out"/old/*.npy; do
    if cmp -s "$f" "$out/new/$(basename "$f")"; then same=$((same + 1)); else differ+=("$(basename "$f")"); fi
  done
  verdict="$same identical"
  if [[ ${#differ[@]} -gt 0 ]]; then verdict="DIFFER: ${differ[*]}"; status=1; fi
  echo "| $name | $a s | $b s | $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }') | $verdict |"
  rm -rf "$out/old" "$out/new"
done
exit $status
