#pragma once
// The GPU backend's plugin, loaded once per process the first time a GPU is asked for (a device list
// naming cuda, `pipeline_cli devices`), never before: a CPU run never loads it, nor the CUDA runtime.
//
// It is libpacflow_cuda.so, looked for beside the engine's own library, or in $PACFLOW_PLUGIN_DIR
// when that is set. When it cannot be used, availability().why_none says why: "library not
// installed" (the file is missing, or the CUDA runtime it needs is: dlopen's message), or what the
// loaded backend found ("no driver", "driver too old", "no GPU").
#include <filesystem>
#include <memory>
#include <string>

#include "engine/api/registry.hpp"
#include "engine/devices/gpu_backend.hpp"

namespace pacflow {

struct GpuPlugin {
  std::filesystem::path path;            // the file looked for
  std::unique_ptr<GpuBackend> backend;   // null when it could not be loaded
  GpuAvailability availability;
};

const GpuPlugin& gpu_plugin();

// A stage's GPU kernel, once planned: the element's own (ElementInfo::kernels), else the plugin's.
// Null when there is none that runs the stage as planned, with the reason in `why`.
std::unique_ptr<StageKernel> gpu_kernel(const ElementInfo& info, const Stage& stage, std::string& why);

}  // namespace pacflow
