#!/usr/bin/env bash
# Sets up a Debian 12 machine for pacflow and builds it: installs every dependency from Debian's
# packages (as root, or through sudo), makes the Python virtual environment .venv (Debian's Python is
# externally managed) with the Python packages from PyPI, then configures and builds the `default`
# CMake preset and installs the Python package `pacflow` into .venv from that same build (nothing is
# compiled twice). Idempotent: what is present is not reinstalled, and the build is incremental.
# Only what running needs is built (the engine, stages, pipeline_cli, make_example_inputs, the CUDA
# plugin where nvcc is found, the Python module); --tests adds the test programs, the benchmarks and
# the Python packages the tests compare against, so that `ctest --preset default` can run.
#
#   bash tools/setup.sh              install what is missing, build (build/), install pacflow into .venv
#   bash tools/setup.sh --tests      the same, then build the tests and benchmarks (cmake --build --preset tests)
#   bash tools/setup.sh --deps-only  install what is missing (Debian packages, .venv), do not build
#   bash tools/setup.sh --no-python  no .venv and no Python package (a machine without PyPI)
#
# The versions built and tested against: tools/debian-packages.lock (Debian),
# tools/python-requirements.lock and, for the tests, tools/python-test-requirements.lock (PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."

with_python=1 with_tests=0 build=1
for arg in "$@"; do
  case "$arg" in
    --tests) with_tests=1 ;;
    --deps-only) build=0 ;;
    --no-python) with_python=0 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup: unknown option $arg (bash tools/setup.sh --help)" >&2; exit 2 ;;
  esac
done

# Every package with the version it was tested with: tools/debian-packages.lock. Missing packages
# are installed at exactly that version; where the archive no longer has it (a Debian point release
# replaced it), the current bookworm version is installed instead, with a warning naming each one.
# Installed packages are left alone, but a version that differs from the lock is reported.
lock=tools/debian-packages.lock
missing=()
while read -r package version note; do
  [[ -z "$package" || "$package" == \#* ]] && continue
  [[ "$note" == "# tests:"* ]] && ((!with_tests)) && continue
  installed="$(dpkg-query -W -f='${Status} ${Version}' "$package" 2>/dev/null || true)"
  if [[ "$installed" != "install ok installed "* ]]; then
    missing+=("$package=$version")
  elif [[ "${installed#install ok installed }" != "$version" ]]; then
    echo "setup: warning: $package ${installed#install ok installed } is installed; pacflow was tested with $version ($lock)" >&2
  fi
done < "$lock"

if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  apt=($SUDO env DEBIAN_FRONTEND=noninteractive apt-get -y -q --no-install-recommends)
  echo "setup: installing ${missing[*]}"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
  if ! "${apt[@]}" install "${missing[@]}"; then
    for pinned in "${missing[@]}"; do
      package="${pinned%%=*}"
      available="$(apt-cache policy "$package" | awk '/Candidate:/ {print $2}')"
      [ "$available" = "${pinned#*=}" ] ||
        echo "setup: warning: $package ${pinned#*=} is no longer in the archive; installing $available" >&2
    done
    "${apt[@]}" install "${missing[@]%%=*}"
  fi
fi

if ((with_python)); then
  # The virtual environment, from Debian's Python, with the pinned Python packages: those the package
  # needs to build and run, and with --tests those its tests compare against (TensorPAC, MNE, pytest).
  [ -x .venv/bin/python ] || /usr/bin/python3 -m venv .venv
  requirements=(-r tools/python-requirements.lock)
  ((with_tests)) && requirements+=(-r tools/python-test-requirements.lock)
  .venv/bin/python -m pip install -q --disable-pip-version-check "${requirements[@]}"
fi

if ((build)); then
  python_args=()
  ((with_python)) && python_args=(-DPython_EXECUTABLE="$PWD/.venv/bin/python")
  cmake --preset default "${python_args[@]}"
  cmake --build --preset default
  if ((with_python)); then
    # `pip install ./python` on the build above: scikit-build-core configures build/ again with the
    # preset's settings, finds everything built, and installs the module and the engine's libraries.
    CMAKE_GENERATOR=Ninja .venv/bin/python -m pip install -q --disable-pip-version-check --no-build-isolation \
      --no-deps --force-reinstall --config-settings=build-dir="$PWD/build" \
      --config-settings=cmake.build-type=RelWithDebInfo --config-settings=cmake.define.PACFLOW_BUILD_TESTS=ON \
      --config-settings=cmake.define.PACFLOW_BUILD_BENCH=ON ./python
  fi
  # An `if`, not `((with_tests)) && …`: as the script's last command that would make it exit 1
  # without --tests, and `bash tools/setup.sh && build/bin/pipeline_cli run …` would run nothing.
  if ((with_tests)); then cmake --build --preset tests; fi
fi
exit 0
