#!/usr/bin/env bash
# The README's two commands on a fresh machine, timed part by part (issue 41: the first under
# 8 minutes on a fresh 2-core Debian 12 machine, packages included; the second under 15 more):
#   Debian packages: a minimal Debian 12 system made with debootstrap (--variant=minbase, about what
#     a `debian:12` container holds), in which `tools/setup.sh --deps-only --no-python` installs
#     what the first command needs, then `tools/setup.sh --deps-only --no-python --tests` what the
#     second adds (apt-get update included in each);
#   the rest, on this machine (whose packages are installed): a fresh clone of HEAD, a fresh
#     virtual environment and pip with no cache, then the README's first command verbatim, then its
#     second (the tests' Python packages, the tests' build, ctest).
# Needs root and debootstrap (`apt-get install debootstrap`); --no-chroot times the rest alone.
# Prints one Markdown table row per part for bench/README.md ("Build time").
set -euo pipefail
cd "$(dirname "$0")/.."
chroot_part=1
case "${1:-}" in
  --no-chroot) chroot_part=0 ;;
  "") ;;
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "setup_time.sh: unknown option $1 (--no-chroot, --help)" >&2; exit 2 ;;
esac
work=$(mktemp -d /tmp/pacflow-setup-time.XXXXXX)
# The chroot's /proc is unmounted before anything is removed, and rm stays on this file system:
# a mount left behind is reported, never descended into.
cleanup() {
  if mountpoint -q "$work/debian/proc" 2>/dev/null && ! umount "$work/debian/proc"; then
    echo "setup_time.sh: $work/debian/proc is still mounted; $work left in place" >&2
    return
  fi
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT

# timed LABEL DIRECTORY COMMAND: runs COMMAND with bash in DIRECTORY (its output in $work/LABEL.log),
# prints "| LABEL | wall s |".
timed() {
  local label=$1 dir=$2 command=$3 start=$SECONDS
  (cd "$dir" && PIP_NO_CACHE_DIR=1 bash -c "$command") > "$work/$label.log" 2>&1 ||
    { tail -20 "$work/$label.log" >&2; echo "setup_time.sh: $label failed" >&2; exit 1; }
  printf '| %s | %d |\n' "$label" $((SECONDS - start))
}

echo "| part | wall s |"
echo "| --- | ---: |"
if ((chroot_part)); then
  [ "$(id -u)" -eq 0 ] || { echo "setup_time.sh: the Debian part needs root (or pass --no-chroot)" >&2; exit 2; }
  command -v debootstrap > /dev/null || { echo "setup_time.sh: debootstrap is not installed (apt-get install debootstrap)" >&2; exit 2; }
  debootstrap --variant=minbase bookworm "$work/debian" http://deb.debian.org/debian > "$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  # The machine's own archive sources (a mirror, the security suite) and name resolution.
  cp /etc/resolv.conf "$work/debian/etc/"
  if compgen -G "/etc/apt/sources.list.d/*.sources" > /dev/null; then
    cp /etc/apt/sources.list.d/*.sources "$work/debian/etc/apt/sources.list.d/"
    rm -f "$work/debian/etc/apt/sources.list"
  fi
  mkdir -p "$work/debian/src" && cp -r tools "$work/debian/src/"
  mount -t proc proc "$work/debian/proc"
  timed "first command: Debian packages on a fresh Debian 12" . \
    "chroot '$work/debian' bash /src/tools/setup.sh --deps-only --no-python"
  timed "second command: the Debian packages the tests add" . \
    "chroot '$work/debian' bash /src/tools/setup.sh --deps-only --no-python --tests"
fi

git clone -q . "$work/src"
timed "first command: venv, Python packages, configure, build, run (fresh clone, no pip cache)" "$work/src" \
  "bash tools/setup.sh && build/bin/pipeline_cli run pipelines/pac.pipe"
timed "second command: the tests' Python packages, the tests' build, ctest" "$work/src" \
  "bash tools/setup.sh --tests && ctest --preset default"
