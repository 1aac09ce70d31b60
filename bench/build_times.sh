#!/usr/bin/env bash
# Build-time record (issue 41): a fresh clone of HEAD, then for each preset a fresh configure and
# build, timed (wall seconds, and the CPU seconds the compilers used, which depend less on what else
# the machine is doing). The Debian and Python packages are assumed installed (tools/setup.sh
# --deps-only --tests); their download time is the network's, not the build's.
#
#   bench/build_times.sh [PRESET...]   default: first tests (the README's two commands' builds)
#
#   first   `cmake --build --preset default`: what the README's first command builds
#   tests   `cmake --build --preset tests` after `first`: the test programs and benchmarks it adds
#   asan | tsan | fuzz   that preset's configure and build, from nothing
# Prints one Markdown table row per preset, for bench/README.md ("Build time").
set -euo pipefail
cd "$(dirname "$0")/.."
presets=("$@")
((${#presets[@]})) || presets=(first tests)
work=$(mktemp -d /tmp/pacflow-build-times.XXXXXX)
trap 'rm -rf "$work"' EXIT
git clone -q . "$work/src"
cd "$work/src"
[[ -x "$OLDPWD/.venv/bin/python" ]] && ln -s "$OLDPWD/.venv" .venv
python_args=()
[[ -x .venv/bin/python ]] && python_args=(-DPython_EXECUTABLE="$PWD/.venv/bin/python")

# timed LABEL COMMAND...: runs COMMAND, prints "| LABEL | wall s | CPU s |" (CPU: user + system of
# every process it started).
timed() {
  local label=$1; shift
  local start=$SECONDS
  /usr/bin/time -o "$work/$label.time" -f '%U %S' "$@" > "$work/$label.log" 2>&1 ||
    { tail -20 "$work/$label.log" >&2; echo "build_times.sh: the $label build failed" >&2; exit 1; }
  local cpu
  cpu=$(awk '{printf "%.0f", $1 + $2}' "$work/$label.time")
  printf '| %s | %d | %s |\n' "$label" $((SECONDS - start)) "$cpu"
}

echo "| build | wall s | CPU s |"
echo "| --- | ---: | ---: |"
for preset in "${presets[@]}"; do
  case "$preset" in
    first) timed first bash -c "cmake --preset default ${python_args[*]} && cmake --build --preset default" ;;
    tests) timed tests cmake --build --preset tests ;;
    asan|tsan|fuzz) timed "$preset" bash -c "cmake --preset $preset && cmake --build --preset $preset" ;;
    *) echo "build_times.sh: unknown preset $preset (first, tests, asan, tsan, fuzz)" >&2; exit 2 ;;
  esac
done
