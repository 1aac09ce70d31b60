#!/usr/bin/env bash
# The README's first command on a fresh machine, timed in its two parts (issue 41: under 8 minutes
# in all on a fresh 2-core Debian 12 machine):
#   1. the Debian packages: a minimal Debian 12 system made with debootstrap (--variant=minbase,
#      about what a `debian:12` container holds), in which `tools/setup.sh --deps-only --no-python`
#      installs what the first command needs from the archive (apt-get update included);
#   2. the rest, on this machine (whose packages are installed): a fresh clone of HEAD, a fresh
#      virtual environment, pip with no cache, then the README's first command verbatim.
# Needs root and debootstrap (`apt-get install debootstrap`); --no-chroot times part 2 alone.
# Prints one Markdown table row per part for bench/README.md ("Build time").
set -euo pipefail
cd "$(dirname "$0")/.."
chroot_part=1
case "${1:-}" in
  --no-chroot) chroot_part=0 ;;
  "") ;;
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "first_command_time.sh: unknown option $1 (--no-chroot, --help)" >&2; exit 2 ;;
esac
work=$(mktemp -d /tmp/pacflow-first-command.XXXXXX)
cleanup() {
  mountpoint -q "$work/debian/proc" 2>/dev/null && umount "$work/debian/proc"
  rm -rf "$work"
}
trap cleanup EXIT

echo "| part | wall s |"
echo "| --- | ---: |"
if ((chroot_part)); then
  [ "$(id -u)" -eq 0 ] || { echo "first_command_time.sh: the Debian part needs root (or pass --no-chroot)" >&2; exit 2; }
  command -v debootstrap > /dev/null || { echo "first_command_time.sh: debootstrap is not installed (apt-get install debootstrap)" >&2; exit 2; }
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
  start=$SECONDS
  chroot "$work/debian" bash /src/tools/setup.sh --deps-only --no-python > "$work/apt.log" 2>&1 ||
    { tail -20 "$work/apt.log" >&2; exit 1; }
  printf '| Debian packages on a fresh Debian 12 (%s packages set up) | %d |\n' \
    "$(grep -c '^Setting up' "$work/apt.log")" $((SECONDS - start))
fi

git clone -q . "$work/src"
start=$SECONDS
(cd "$work/src" && PIP_NO_CACHE_DIR=1 bash -c 'bash tools/setup.sh && build/bin/pipeline_cli run pipelines/pac.pipe') \
  > "$work/first.log" 2>&1 || { tail -20 "$work/first.log" >&2; exit 1; }
printf '| venv, Python packages (no pip cache), configure, build, run (fresh clone) | %d |\n' $((SECONDS - start))
