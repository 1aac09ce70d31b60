#!/usr/bin/env bash
# Builds oneTBB instrumented with ThreadSanitizer, from the Debian source package of the very
# version libtbb-dev installed, into $1 (default build-tsan-tbb/install).
#
#   bash tools/sanitizers/build_tbb_tsan.sh [PREFIX]
#   bash tools/sanitizers/build_tbb_tsan.sh --print-sources   # the deb-src list it would use, and stop
#
# Why: Debian's libtbb.so is not instrumented, so TSan cannot see the synchronisation inside it
# (task hand-offs, the small-object pool, wait_for_all) and reports false races on every flow
# graph. Linking the tsan preset against an instrumented oneTBB makes its reports meaningful.
# The source package comes through a deb-src list made from this machine's own apt `deb` entries
# (tools/sanitizers/apt_source_list.py: the same mirror, proxy or snapshot, and keys), in a private
# apt state, so the system's apt configuration and lists are left alone.
# Idempotent: does nothing when the install already exists.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = "--print-sources" ]; then
  exec python3 tools/sanitizers/apt_source_list.py
fi
prefix="$(realpath -m "${1:-build-tsan-tbb/install}")"
work="$(dirname "$prefix")"
if [ -f "$prefix/lib/cmake/TBB/TBBConfig.cmake" ]; then
  echo "build_tbb_tsan: $prefix already built"
  exit 0
fi
version="$(dpkg-query -W -f='${Version}' libtbb-dev)"
mkdir -p "$work/src" "$work/lists/partial"
python3 tools/sanitizers/apt_source_list.py > "$work/source.sources"
echo "build_tbb_tsan: fetching onetbb $version through these source entries (from /etc/apt):"
sed 's/^/  /' "$work/source.sources"
apt=(apt-get -q -o "Dir::Etc::SourceList=$work/source.sources" -o Dir::Etc::SourceParts=/dev/null
     -o "Dir::State::Lists=$work/lists" -o APT::Sandbox::User=root)
"${apt[@]}" update
(cd "$work/src" && "${apt[@]}" source --download-only "onetbb=$version")
rm -rf "$work/src/tree"
dpkg-source --no-check -x "$(ls "$work"/src/onetbb_*.dsc | head -1)" "$work/src/tree"
cmake -S "$work/src/tree" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTBB_TEST=OFF -DTBB_EXAMPLES=OFF -DTBBMALLOC_BUILD=OFF -DTBB_STRICT=OFF -DTBB_SANITIZE=thread \
  -DCMAKE_INSTALL_PREFIX="$prefix"
cmake --build "$work/build" --target install
