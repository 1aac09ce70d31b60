#!/usr/bin/env bash
# Packs a CUDA build for a GPU machine that has the NVIDIA driver and CUDA runtime but none of this
# project's Debian libraries (oneTBB, FFTW, HDF5, EDFlib, fmt, minizip): stripped copies of the
# programs that touch a GPU, and every shared library they load that is neither glibc nor CUDA's.
# tools/gpu/check.sh runs them there. The build's source folder is recorded, because the tests read
# their fixtures from the absolute path they were compiled with.
# Usage: tools/gpu/bundle.sh [BUILD_DIR] [DEST]   (defaults: build .gpu-bundle)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
dest=${2:-.gpu-bundle}
programs=(bin/pipeline_cli bin/gpu_bench bin/make_example_inputs tests/cuda_tests tests/stage_tests tests/engine_tests
          tests/cli_tests)
for p in "${programs[@]}"; do
  [[ -x $build/$p ]] || { echo "bundle.sh: $build/$p is missing: build with nvcc present first (cmake --build --preset tests)" >&2; exit 2; }
done
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib"
for p in "${programs[@]}"; do
  strip --strip-debug -o "$dest/bin/$(basename "$p")" "$build/$p"
done
# glibc's own libraries and CUDA's come from the GPU machine; everything else travels, with the CUDA
# plugin, which the engine loads from beside its own library (engine/devices/gpu_plugin.hpp).
plugin=$build/lib/libpacflow_cuda.so
[[ -f $plugin ]] || { echo "bundle.sh: $plugin is missing: build with nvcc present first" >&2; exit 2; }
skip='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|libpthread\.|librt\.|libresolv\.|libcuda|libcudart|libcufft|libnvidia)'
for p in "${programs[@]/#/$build/}" "$plugin"; do
  ldd "$p" | awk '$3 ~ /^\// { print $1, $3 }'
done | sort -u | while read -r name path; do
  [[ $name =~ $skip ]] && continue
  if [[ $name == libpacflow_* ]]; then strip --strip-debug -o "$dest/lib/$name" "$path"; else cp -L "$path" "$dest/lib/$name"; fi
done
strip --strip-debug -o "$dest/lib/libpacflow_cuda.so" "$plugin"
# cuFFT alone under initcheck, to tell cuFFT's own reports from the stages' (check.sh's sanitize step).
nvcc -O2 -std=c++17 -o "$dest/bin/cufft_initcheck_probe" tools/gpu/cufft_initcheck_probe.cu -lcufft
echo "$(realpath .)" > "$dest/source_dir"
git rev-parse --short HEAD > "$dest/commit" 2>/dev/null || echo unknown > "$dest/commit"
du -sh "$dest"
