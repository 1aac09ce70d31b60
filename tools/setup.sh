#!/usr/bin/env bash
# Installs every build and test dependency of pacflow from Debian 12 packages. Idempotent; run as root
# (or with sudo available). Versions are pinned to Debian 12 (bookworm) via the suite; the exact
# versions we build and test against are listed in docs/dependencies.md.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libtbb-dev            # oneTBB flow graph, task arenas
  libboost-dev          # Boost.Lockfree (header-only)
  libfftw3-dev          # CPU FFT
  libcli11-dev          # command line
  libfmt-dev            # formatting
  nlohmann-json3-dev    # result.json
  libstb-dev            # PNG writer, bitmap font
  libssl-dev            # SHA-256 of inputs (libcrypto)
  libgtest-dev libgmock-dev googletest
  libbenchmark-dev
  python3
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
