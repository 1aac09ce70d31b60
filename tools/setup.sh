#!/usr/bin/env bash
# Sets up a Debian 12 machine for pacflow and builds it: installs every dependency from Debian's
# packages (as root, or through sudo), then configures and builds the `default` CMake preset.
# Idempotent: packages already present are not reinstalled, and the build is incremental.
#
#   bash tools/setup.sh              install what is missing, then build (build/)
#   bash tools/setup.sh --deps-only  install what is missing, do not build
#
# The versions built and tested against are listed in docs/dependencies.md (Debian 12 "bookworm").
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config
  libtbb-dev            # oneTBB: flow graph, parallel algorithms
  libboost-dev          # Boost.Lockfree (ring buffers between devices); Boost.Math (erf_inv, digamma, normal quantile: ndpac, gc)
  libfftw3-dev          # CPU FFT (single precision)
  libcli11-dev          # command line
  libfmt-dev            # formatting
  nlohmann-json3-dev    # JSON (parameters, result.json)
  libstb-dev            # PNG writer and bitmap font
  libssl-dev            # SHA-256 of input files (libcrypto)
  libedf-dev            # EDFlib: EDF/EDF+/BDF/BDF+ recordings (source edf)
  libhdf5-dev           # HDF5 C library (source and sink hdf5)
  libgtest-dev libgmock-dev googletest
  libbenchmark-dev
  clang-14 libclang-rt-14-dev  # libFuzzer and sanitizer runtimes: the fuzz preset (docs/reliability.md)
  time                  # /usr/bin/time: peak RSS in bench/run_workloads.sh
  python3-matplotlib    # bench/plot_engine_bench.py: the scaling plot in bench/README.md
  python3-h5py          # docs/formats.md: reading the hdf5 sink's file from Python (its test skips without)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ "${1:-}" != "--deps-only" ]; then
  cmake --preset default
  cmake --build --preset default
fi
