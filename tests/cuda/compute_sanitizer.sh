#!/usr/bin/env bash
# Runs the CUDA tests under each of compute-sanitizer's tools (memcheck with leak checking,
# racecheck, synccheck, initcheck) and fails if any reports an error. Child processes the tests
# start (pipeline_cli) are followed too. Needs a GPU; without compute-sanitizer or a GPU it says so
# and exits 0 (skipped), like the tests themselves. Every GPU is presented as four logical ones
# (PACFLOW_LOGICAL_GPUS, unless set otherwise), so that the multi-GPU tests (ManyGpus.*) run too.
# Usage: tests/cuda/compute_sanitizer.sh [CUDA_TESTS] [GTEST_FILTER]
#   (defaults: build/tests/cuda_tests, every test). Each tool's log is written to
#   $PACFLOW_SANITIZER_LOGS/sanitizer-TOOL.log (default: the current folder); each tool stops after
#   $PACFLOW_SANITIZER_TIMEOUT seconds (default 1800), which counts as a failure.
set -uo pipefail
tests=${1:-build/tests/cuda_tests}
filter=${2:-*}
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
[[ -n $sanitizer ]] || { echo "compute_sanitizer.sh: skipped: compute-sanitizer is not installed"; exit 0; }
[[ -x $tests ]] || { echo "compute_sanitizer.sh: $tests is missing: build the default preset with nvcc present" >&2; exit 2; }
if ! nvidia-smi -L > /dev/null 2>&1; then echo "compute_sanitizer.sh: skipped: no GPU visible"; exit 0; fi
export PACFLOW_LOGICAL_GPUS=${PACFLOW_LOGICAL_GPUS:-4}
logs=${PACFLOW_SANITIZER_LOGS:-.}
mkdir -p "$logs"
failed=0
for tool in memcheck racecheck synccheck initcheck; do
  extra=()
  [[ $tool == memcheck ]] && extra=(--leak-check full)
  [[ $tool == racecheck ]] && extra=(--racecheck-report all)
  start=$EPOCHREALTIME
  timeout "${PACFLOW_SANITIZER_TIMEOUT:-1800}" "$sanitizer" --tool "$tool" "${extra[@]}" --target-processes all --error-exitcode 3 --print-limit 20 \
    "$tests" --gtest_filter="$filter" --gtest_brief=1 > "$logs/sanitizer-$tool.log" 2>&1
  rc=$?
  summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY' "$logs/sanitizer-$tool.log" | sort | uniq -c | tr -s ' ' | paste -sd';')
  printf '%-10s rc=%d %6.1f s  %s\n' "$tool" "$rc" "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')" "$summary"
  if ((rc != 0)); then failed=1; grep -m 40 -E '=========' "$logs/sanitizer-$tool.log"; fi
done
exit $failed
