#!/usr/bin/env bash
# Sets up a Debian 12 machine for pacflow and builds it: installs every dependency from Debian's
# packages (as root, or through sudo), then configures and builds the `default` CMake preset.
# Idempotent: packages already present are not reinstalled, and the build is incremental.
#
#   bash tools/setup.sh              install what is missing, then build (build/)
#   bash tools/setup.sh --deps-only  install what is missing, do not build
#
# The packages and the versions built and tested against: tools/debian-packages.lock.
set -euo pipefail
cd "$(dirname "$0")/.."

# Every package with the version it was tested with: tools/debian-packages.lock. Missing packages
# are installed at exactly that version; where the archive no longer has it (a Debian point release
# replaced it), the current bookworm version is installed instead, with a warning naming each one.
# Installed packages are left alone, but a version that differs from the lock is reported.
lock=tools/debian-packages.lock
missing=()
while read -r package version _; do
  [[ -z "$package" || "$package" == \#* ]] && continue
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

if [ "${1:-}" != "--deps-only" ]; then
  cmake --preset default
  cmake --build --preset default
fi
