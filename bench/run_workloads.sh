#!/usr/bin/env bash
# Times the reference workloads W1-W3 end to end as a user runs them (pipeline_cli run, loading and
# writing included): the median and fastest wall time of N runs (default 5; bash's EPOCHREALTIME)
# and the largest peak RSS (/usr/bin/time), printed as the Markdown table of bench/README.md
# ("Workloads end to end") after a line giving the conditions of the measurement. Each run writes
# into the same output directory, as a user's repeated runs do.
# Usage: bench/run_workloads.sh [N] [w1 w2 w3 gpac ...]   (from the repository root, after a build)
# PACFLOW_CLI names another pipeline_cli (a bundle's, tools/gpu/bundle.sh), PACFLOW_RUN_ARGS adds
# options to every run (--devices cuda:0). Without /usr/bin/time the peak RSS column reads "-".
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift || true
workloads=${*:-w1 w2 w3}
cli=${PACFLOW_CLI:-build/bin/pipeline_cli}
read -ra run_args <<< "${PACFLOW_RUN_ARGS:-}"
[[ -x $cli ]] || { echo "run tools/setup.sh first: $cli is missing" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Issue 4's goals: wall seconds, and for W2 peak RSS under 1 GiB.
# gPAC's scenario (issue 21): under 5 s on one H100 (its input: make_example_inputs --gpac out/bench).
declare -A goal=([w1]=0.25 [w2]=10 [w3]=60 [gpac]=5)

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "<!-- $(date -I), $cpu, $(nproc) CPUs, load average before: $(cut -d' ' -f1-3 /proc/loadavg); medians of $runs runs${PACFLOW_RUN_ARGS:+, options $PACFLOW_RUN_ARGS} -->"
echo "| workload | median | fastest | peak RSS | goal (issue 4) |"
echo "| --- | --- | --- | --- | --- |"
for w in $workloads; do
  times=() peak=0
  for ((i = 0; i < runs; i++)); do
    start=$EPOCHREALTIME
    if [[ -x /usr/bin/time ]]; then
      /usr/bin/time -f '%M' -o "$out/rss" "$cli" run -q "${run_args[@]}" --out "$out/$w" "pipelines/bench/$w.pipe" 2>/dev/null
    else
      "$cli" run -q "${run_args[@]}" --out "$out/$w" "pipelines/bench/$w.pipe" 2>/dev/null && echo 0 > "$out/rss"
    fi
    seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
    read -r kib < "$out/rss"
    times+=("$seconds")
    ((kib > peak)) && peak=$kib
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -g)
  median=$(sed -n "$(((runs + 1) / 2))p" <<< "$sorted")
  verdict="no goal"
  if [[ -n ${goal[$w]:-} ]]; then
    verdict="< ${goal[$w]} s: $(awk -v m="$median" -v g="${goal[$w]}" 'BEGIN { print (m < g) ? "met" : "**not met**" }')"
    [[ $w == w2 ]] && verdict+="; RSS < 1 GiB: $( ((peak < 1048576)) && echo met || echo '**not met**')"
  fi
  rss=$( ((peak > 0)) && echo "$((peak / 1024)) MiB" || echo -)
  printf '| %s | %s s | %s s | %s | %s |\n' "${w^^}" "$median" "$(head -1 <<< "$sorted")" "$rss" "$verdict"
done
echo "<!-- load average after: $(cut -d' ' -f1-3 /proc/loadavg) -->"
