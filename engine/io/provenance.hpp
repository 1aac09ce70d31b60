#pragma once
// Where a result comes from: the command that made it, the build (version, commit, compiler, CUDA,
// the vector width the CPU kernels chose) and the machine (host, CPU, threads, GPUs). A run's
// report carries it as `provenance` (RunOptions::provenance); it is the one part of result.json
// that differs between machines.
#include <string>
#include <vector>

#include "engine/api/params.hpp"

namespace pacflow {

// The git commit the build comes from ("unknown" outside a git checkout), and `git describe`'s
// name for it ("v0.1-3-gabc1234-dirty").
std::string build_commit();
std::string build_describe();

// `command_line`: the program's arguments as given; `simd_width_bytes`: the vector width the CPU
// kernels run with (16, 32 or 64; 0 when unknown). The run adds what each device backend knows of
// its devices (DeviceBackend::provenance: the GPUs).
json collect_provenance(const std::vector<std::string>& command_line, int simd_width_bytes);

}  // namespace pacflow
