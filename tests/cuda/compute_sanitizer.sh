#!/usr/bin/env bash
# Runs the CUDA tests under each of compute-sanitizer's tools (memcheck with leak checking,
# racecheck, synccheck, initcheck) and fails if any reports an error. Child processes the tests
# start (pipeline_cli) are followed too. Needs a GPU; without compute-sanitizer or a GPU it says so
# and exits 0 (skipped), like the tests themselves. Every GPU is presented as four logical ones
# (PACFLOW_LOGICAL_GPUS, unless set otherwise), so that the multi-GPU tests (ManyGpus.*) run too.
# Usage: tests/cuda/compute_sanitizer.sh [CUDA_TESTS] [GTEST_FILTER]
#   (defaults: build/tests/cuda_tests, every test). Each tool's log is written to
#   $PACFLOW_SANITIZER_LOGS/sanitizer-TOOL.log (default: the current folder); each tool stops after
#   $PACFLOW_SANITIZER_TIMEOUT seconds (default 1800), which counts as a failure;
#   PACFLOW_SANITIZER_PARALLEL=1 runs the tools at once; PACFLOW_SANITIZER_TOOLS names fewer.
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
# One tool: its log, and a line saying how it went (printed, and kept beside the log).
sanitize() {
  local tool=$1 extra=()
  # memcheck also checks the stream-ordered pool (cudaMallocFromPoolAsync / cudaFreeAsync): a use
  # before the allocation or after the free on another stream.
  [[ $tool == memcheck ]] && extra=(--leak-check full --track-stream-ordered-races all)
  [[ $tool == racecheck ]] && extra=(--racecheck-report all)
  local start=$EPOCHREALTIME log=$logs/sanitizer-$tool.log
  timeout "${PACFLOW_SANITIZER_TIMEOUT:-1800}" "$sanitizer" --tool "$tool" "${extra[@]}" --target-processes all --error-exitcode 3 --print-limit 20 \
    "$tests" --gtest_filter="$filter" > "$log" 2>&1
  local rc=$?
  local summary
  summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY' "$log" | sort | uniq -c | tr -s ' ' | paste -sd';')
  printf '%-10s rc=%d %6.1f s  %s\n' "$tool" "$rc" "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')" "$summary" > "$log.status"
  if ((rc != 0)); then grep -m 40 -E '=========|FAILED|Failure' "$log" >> "$log.status"; fi
  return $rc
}
# The tools run one after another, or all at once with PACFLOW_SANITIZER_PARALLEL=1 (a lease's
# minutes are few; the tests' numbers do not depend on what else runs on the GPU).
read -ra tools <<< "${PACFLOW_SANITIZER_TOOLS:-memcheck racecheck synccheck initcheck}"
failed=0
if [[ ${PACFLOW_SANITIZER_PARALLEL:-0} == 1 ]]; then
  for tool in "${tools[@]}"; do sanitize "$tool" & done
  for job in $(jobs -p); do wait "$job" || failed=1; done
else
  for tool in "${tools[@]}"; do sanitize "$tool" || failed=1; done
fi
for tool in "${tools[@]}"; do cat "$logs/sanitizer-$tool.log.status"; done
exit $failed
