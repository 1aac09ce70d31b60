#!/usr/bin/env bash
# Runs every fuzz target of the `fuzz` preset for SECONDS each (default 20: CI's smoke run), starting
# from its seeds and regressions. Build first:
#
#   cmake --preset asan && cmake --build --preset fuzz -j 2   (the asan build: clang, libFuzzer coverage)
#   bash tests/fuzz/run.sh 20                      # every target, 20 s each
#   bash tests/fuzz/run.sh 3600 -jobs=2 -workers=2 # longer: any libFuzzer flag after the seconds
#   FUZZ_TARGETS=npy_reader bash tests/fuzz/run.sh 600
#
# Inputs that add coverage go to build-asan/fuzz/corpus/<target>/ (kept between runs, never committed);
# an input that crashes is written to build-asan/fuzz/artifacts/<target>/ and the script fails. Fix the
# bug, then copy the input into tests/fuzz/<target>/regressions/ (docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-20}"
shift || true
targets=(${FUZZ_TARGETS:-pipe_format npy_reader edf_reader hdf5_metadata brainvision_reader})
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
for target in "${targets[@]}"; do
  corpus="build-asan/fuzz/corpus/$target"
  artifacts="build-asan/fuzz/artifacts/$target"
  mkdir -p "$corpus" "$artifacts"
  inputs=("tests/fuzz/$target/seeds")
  [ -d "tests/fuzz/$target/regressions" ] && inputs+=("tests/fuzz/$target/regressions")
  echo "== fuzz_$target: ${seconds} s"
  "build-asan/bin/fuzz_$target" "$corpus" "${inputs[@]}" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -artifact_prefix="$artifacts/" -print_final_stats=1 "$@" 2>&1 | tail -n 25
done
