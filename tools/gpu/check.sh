#!/usr/bin/env bash
# On a GPU machine, with a bundle from tools/gpu/bundle.sh: the GPU checks of issue 21 in one go,
# each step's log and JSON written into OUT_DIR (default ./gpu-check):
#   devices   nvidia-smi and `pipeline_cli devices`
#   tests     cuda_tests, again with every GPU as four logical ones (PACFLOW_LOGICAL_GPUS=4: the
#             multi-GPU paths), stage_tests 'Devices/*', the GPU branches of engine_tests and cli_tests
#   sanitize  cuFFT alone under initcheck (tools/gpu/cufft_initcheck_probe.cu), then
#             tests/cuda/compute_sanitizer.sh (memcheck, racecheck, synccheck, initcheck at once, over
#             four logical GPUs) on every CUDA test but the one that starts pipeline_cli (under each
#             tool it ran past 215 s on an H100; PACFLOW_SANITIZER_FILTER='*' takes it back)
#   bench     gpu_bench (medians of 5), JSON kept
#   cli       W1-W3 through pipeline_cli on cuda:0 and on the CPU (bench/run_workloads.sh), and W1's
#             fixed costs: process start, device enumeration, a traced run
#   gpac      gPAC's scenario on cuda:0: its input, a traced run, three timed runs
# Usage: tools/gpu/check.sh [BUNDLE] [OUT_DIR] [STEP...]   (from the repository root; all steps
# when none is named). A step that fails is reported and the others still run; the exit status is
# the number of failed steps. PACFLOW_STEP_TIMEOUT=S stops any step after S seconds (a failure).
set -uo pipefail
cd "$(dirname "$0")/../.."
bundle=$(realpath "${1:-.gpu-bundle}")
out=$(realpath -m "${2:-gpu-check}")
shift 2 2>/dev/null || shift $#
steps=${*:-devices tests sanitize bench cli gpac}
[[ -x $bundle/bin/pipeline_cli ]] || { echo "check.sh: no bundle at $bundle (tools/gpu/bundle.sh makes one)" >&2; exit 2; }
mkdir -p "$out"
export LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
# cuFFT and the CUDA runtime come from the GPU machine: where neither the loader's cache nor CUDA's
# folder has them (an image with CUDA from pip wheels), their folder is looked for and added.
for lib in libcufft.so.12 libcudart.so.13; do
  if ! ldconfig -p | grep -q "$lib" && [[ ! -e /usr/local/cuda/lib64/$lib ]]; then
    found=$(find /usr/local /opt /usr/lib -name "$lib" -print -quit 2>/dev/null)
    [[ -n $found ]] && LD_LIBRARY_PATH=$(dirname "$found"):$LD_LIBRARY_PATH
  fi
done
export PATH=$PATH:/usr/local/cuda/bin
# The tests read fixtures, and start pipeline_cli, from the paths they were built with; point those
# at this checkout and the bundle.
src=$(cat "$bundle/source_dir")
if [[ ! -e $src/tests/data ]]; then mkdir -p "$(dirname "$src")" && ln -sfn "$(pwd)" "$src"; fi
bin=$bundle/bin
if [[ ! -x $src/build/bin/pipeline_cli ]]; then mkdir -p "$src/build/bin" && ln -sfn "$bin/pipeline_cli" "$src/build/bin/pipeline_cli"; fi
failed=0
step() {  # step NAME COMMAND...: runs COMMAND, its output in OUT_DIR/NAME.log, and says how it went
  local name=$1; shift
  local start=$EPOCHREALTIME
  # PACFLOW_STEP_TIMEOUT (seconds) bounds each step, so that a lease's time is never lost to a hang.
  timeout "${PACFLOW_STEP_TIMEOUT:-0}" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  printf '%-28s rc=%d  %6.1f s\n' "$name" "$rc" "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')"
  ((rc == 0)) || { failed=$((failed + 1)); tail -20 "$out/$name.log"; }
}
echo "bundle of commit $(cat "$bundle/commit"), $(date -Is)"
for s in $steps; do
  case $s in
    devices)
      step nvidia-smi nvidia-smi
      step cli-devices "$bin/pipeline_cli" devices ;;
    tests)
      step cuda_tests "$bin/cuda_tests"
      step cuda_tests-logical4 env PACFLOW_LOGICAL_GPUS=4 "$bin/cuda_tests" --gtest_filter='GpuPipeline.*:ManyGpus.*'
      step stage_tests-devices "$bin/stage_tests" --gtest_filter='Devices/*'
      # The engine's and the CLI's tests whose GPU-visible branch runs only here.
      step engine_tests-gpu "$bin/engine_tests" --gtest_filter='Builder.*Gpu*:Builder.*Cuda*'
      step cli_tests-gpu "$bin/cli_tests" --gtest_filter='Cli.Devices*:Cli.ResultJsonRecordsProvenance' ;;
    sanitize)
      # 2560: the CUDA tests' bandpass transforms; 4096 and 3000: a power of two and a length cuFFT
      # does not factor into small radices.
      step cufft-initcheck-probe compute-sanitizer --tool initcheck --print-limit 4 "$bin/cufft_initcheck_probe" 2560 4096 3000
      step compute-sanitizer env PACFLOW_SANITIZER_LOGS="$out" PACFLOW_SANITIZER_PARALLEL="${PACFLOW_SANITIZER_PARALLEL:-1}" tests/cuda/compute_sanitizer.sh "$bin/cuda_tests" "${PACFLOW_SANITIZER_FILTER:--GpuPipeline.CliRunsOnTheGpuAndListsIt}"
      # initcheck again on one logical GPU per GPU: on 2026-11-26 it reported reads of buffers the
      # previous kernel on the same stream had written (bench/README.md, "The GPU check on an H100"); this
      # tells the logical GPUs' pools from the single pool.
      step initcheck-one-logical-gpu env PACFLOW_LOGICAL_GPUS=1 PACFLOW_SANITIZER_TOOLS=initcheck \
        PACFLOW_SANITIZER_LOGS="$out/one-logical-gpu" tests/cuda/compute_sanitizer.sh "$bin/cuda_tests" \
        "${PACFLOW_SANITIZER_FILTER:--GpuPipeline.CliRunsOnTheGpuAndListsIt}" ;;
    bench)
      step gpu_bench "$bin/gpu_bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
        --benchmark_out="$out/gpu_bench.json" --benchmark_out_format=json ;;
    cli)
      # Wall seconds of five starts each: the process alone, then with CUDA's initialisation.
      step cli-help-start bash -c "TIMEFORMAT=%R; for i in 1 2 3 4 5; do time $bin/pipeline_cli --help >/dev/null; done"
      step cli-devices-start bash -c "TIMEFORMAT=%R; for i in 1 2 3 4 5; do time $bin/pipeline_cli devices >/dev/null; done"
      step w1-trace "$bin/pipeline_cli" run -q --devices cuda:0 --out "$out/w1" --trace "$out/w1/trace.json" pipelines/bench/w1.pipe
      step workloads-cuda env PACFLOW_CLI="$bin/pipeline_cli" PACFLOW_RUN_ARGS="--devices cuda:0" bench/run_workloads.sh 5
      step workloads-cpu env PACFLOW_CLI="$bin/pipeline_cli" bench/run_workloads.sh 5 ;;
    gpac)
      # gPAC's scenario: its input, one traced run (result.json has each stage's share), then 3 timed.
      step gpac-input "$bin/make_example_inputs" --gpac out/bench
      step gpac-trace "$bin/pipeline_cli" run -q --devices cuda:0 --out "$out/gpac" --trace "$out/gpac/trace.json" pipelines/bench/gpac.pipe
      step gpac-cuda env PACFLOW_CLI="$bin/pipeline_cli" PACFLOW_RUN_ARGS="--devices cuda:0" bench/run_workloads.sh 3 gpac ;;
    *) echo "check.sh: unknown step '$s' (devices tests sanitize bench cli gpac)" >&2; exit 2 ;;
  esac
done
exit $failed
