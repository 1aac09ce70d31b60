#!/usr/bin/env bash
# Times the reference workloads W1-W3 end to end as a user runs them (pipeline_cli run, loading and
# writing included): the median wall time of N runs (default 5) and the largest peak RSS.
# Usage: bench/run_workloads.sh [N] [w1 w2 w3 ...]   (from the repository root, after a build)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift || true
workloads=${*:-w1 w2 w3}
cli=build/bin/pipeline_cli
[[ -x $cli ]] || { echo "run tools/setup.sh first: $cli is missing" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-4s %12s %12s %14s\n' workload "median s" "min s" "peak RSS MiB"
for w in $workloads; do
  times=() peak=0
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f '%e %M' -o "$out/time" "$cli" run -q --out "$out/$w" "pipelines/bench/$w.pipe" 2>/dev/null
    read -r seconds kib < "$out/time"
    times+=("$seconds")
    ((kib > peak)) && peak=$kib
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -g)
  median=$(sed -n "$(((runs + 1) / 2))p" <<< "$sorted")
  printf '%-4s %12s %12s %14d\n' "$w" "$median" "$(head -1 <<< "$sorted")" $((peak / 1024))
done
