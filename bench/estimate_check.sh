#!/usr/bin/env bash
# Compares `pipeline_cli validate`'s run-time estimate with the measured run (issue 35, item 22: a
# SLURM --time taken from the estimate must not kill the job). For each case: the estimate, the
# median wall time of N runs (default 3) and their ratio, as the Markdown table of
# docs/performance.md ("The run-time estimate"). Cases: the reference workloads W1-W3, gPAC's
# scenario, the default pipeline, a dataset of three recordings, one cell at 1024 bins with 10^5
# surrogates, and 2000 amplitude bands in one batch.
# Usage: bench/estimate_check.sh [N] [case ...]   (from the repository root, after a build)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
shift || true
cases=${*:-w1 w2 w3 gpac pac dataset bins1024 amp2000}
cli=${PACFLOW_CLI:-build/bin/pipeline_cli}
[[ -x $cli ]] || { echo "run tools/setup.sh first: $cli is missing" >&2; exit 2; }
py=.venv/bin/python  # tools/setup.sh makes it, with NumPy
[[ -x $py ]] || py=python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Each case: the .pipe file, then --set overrides, in the array `args`.
args_of() {
  case $1 in
    w1 | w2 | w3 | gpac) args=("pipelines/bench/$1.pipe") ;;
    pac) args=(pipelines/pac.pipe) ;;
    dataset) args=("$work/dataset.pipe") ;;
    bins1024) args=(pipelines/pac.pipe --set synthetic.epochs=1 --set synthetic.channels=2
      --set 'bandpass.pha=[[4,8]]' --set 'bandpass.amp=[[60,80]]' --set mi.bins=1024 --set surrogates.n=100000
      --set surrogates.min_shift=1smp) ;;
    amp2000) args=(pipelines/pac.pipe --set bandpass.amp=60:160:2000) ;;
    *) echo "unknown case $1" >&2; exit 2 ;;
  esac
}

if [[ " $cases " == *" gpac "* && ! -f out/bench/gpac.npy ]]; then build/bin/make_example_inputs --gpac out/bench > /dev/null; fi
if [[ " $cases " == *" dataset "* ]]; then
  mkdir -p "$work/inputs"
  printf 'id\tpath\tfs\tlayout\n' > "$work/subjects.tsv"
  for s in 1 2 3; do
    "$py" - "$work/inputs/s$s.npy" "$s" <<'EOF'
import sys, numpy as np
rng = np.random.default_rng(int(sys.argv[2]))
np.save(sys.argv[1], rng.standard_normal((16, 8, 2048)).astype(np.float32))
EOF
    printf 's%s\t%s\t512\tECT\n' "$s" "$work/inputs/s$s.npy" >> "$work/subjects.tsv"
  done
  cat > "$work/dataset.pipe" <<EOF
source  manifest   path=$work/subjects.tsv reader=npy
stage   bandpass   pha=4:20:9 amp=60:160:10
stage   hilbert
stage   mi         bins=18
stage   surrogates n=200 min_shift=1s
sink    npy        dir=$work/dataset_out
EOF
fi

echo "<!-- $(date -I), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs, load average before: $(cut -d' ' -f1-3 /proc/loadavg); medians of $runs runs -->"
# The CPU time over the threads: what the run takes on a machine of its own (the wall clock of a
# shared machine also measures the neighbours).
threads=$(nproc)
echo "| case | estimate | measured wall (median) | wall / estimate | CPU time / $threads threads | that / estimate |"
echo "| --- | --- | --- | --- | --- | --- |"
for c in $cases; do
  args_of "$c"
  estimate=$("$cli" validate --json "${args[@]}" | python3 -c 'import json, sys; print(json.load(sys.stdin)["run_time_estimate"]["seconds"])')
  times=() cpus=()
  for ((i = 0; i < runs; i++)); do
    start=$EPOCHREALTIME
    /usr/bin/time -f '%U %S' -o "$work/cpu" "$cli" run -q --out "$work/out_$c" "${args[@]}" > /dev/null
    times+=("$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')")
    cpus+=("$(awk -v t="$threads" '{ printf "%.3f", ($1 + $2) / t }' "$work/cpu")")
  done
  median=$(printf '%s\n' "${times[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p")
  cpu=$(printf '%s\n' "${cpus[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p")
  awk -v c="$c" -v e="$estimate" -v m="$median" -v u="$cpu" \
    'BEGIN { printf "| %s | %.3g s | %.3g s | %.2f | %.3g s | %.2f |\n", c, e, m, m / e, u, u / e }'
done
echo "<!-- load average after: $(cut -d' ' -f1-3 /proc/loadavg) -->"
