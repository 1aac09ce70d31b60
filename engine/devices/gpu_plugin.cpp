#include "engine/devices/gpu_plugin.hpp"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fmt/format.h>

#include "engine/placement/devices.hpp"

namespace pacflow {

namespace {

// $PACFLOW_PLUGIN_DIR, else the folder of the library this function is in (build/lib in a build
// tree, lib/ once installed).
std::filesystem::path plugin_dir() {
  if (const char* dir = std::getenv("PACFLOW_PLUGIN_DIR"); dir && *dir) return dir;
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&plugin_dir), &info) != 0 && info.dli_fname)
    return std::filesystem::path(info.dli_fname).parent_path();
  return {};
}

GpuPlugin load() {
  GpuPlugin plugin;
  plugin.path = plugin_dir() / PACFLOW_CUDA_PLUGIN_FILE;
  const auto not_installed = [&](const std::string& why) {
    plugin.availability.why_none = "library not installed: " + why;
    return std::move(plugin);
  };
  if (!PACFLOW_CUDA_PLUGIN_BUILT)
    return not_installed("this pacflow was built without CUDA (no nvcc at build time, or -DPACFLOW_CUDA=OFF)");
  std::error_code error;
  if (!std::filesystem::exists(plugin.path, error))
    return not_installed(fmt::format("the CUDA plugin {} is missing (install it there, or set PACFLOW_PLUGIN_DIR "
                                     "to its folder)",
                                     plugin.path.string()));
  // Never closed: the backend's code runs until the process ends (static destructors included).
  void* handle = dlopen(plugin.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return not_installed(dlerror());  // e.g. "libcudart.so.13: cannot open shared object file"
  const auto abi = reinterpret_cast<GpuBackendAbiFn>(dlsym(handle, "pacflow_gpu_backend_abi"));
  const auto version = reinterpret_cast<GpuBackendVersionFn>(dlsym(handle, "pacflow_gpu_backend_version"));
  const auto make = reinterpret_cast<MakeGpuBackendFn>(dlsym(handle, "pacflow_make_gpu_backend"));
  if (!abi || !version || !make)
    return not_installed(fmt::format("{} is not a pacflow GPU plugin", plugin.path.string()));
  if (abi() != kGpuBackendAbi || std::strcmp(version(), PACFLOW_VERSION) != 0)
    return not_installed(fmt::format("{} is from pacflow {} (interface {}), not {} (interface {}); install the "
                                     "plugin built with this pacflow",
                                     plugin.path.string(), version(), abi(), PACFLOW_VERSION, kGpuBackendAbi));
  make(&plugin.backend);
  plugin.availability = plugin.backend->availability();
  return plugin;
}

}  // namespace

const GpuPlugin& gpu_plugin() {
  static const GpuPlugin plugin = load();  // loaded once: the machine's GPUs do not change during a run
  return plugin;
}

const GpuAvailability& cuda_availability() { return gpu_plugin().availability; }

std::unique_ptr<StageKernel> gpu_kernel(const ElementInfo& info, const Stage& stage, std::string& why) {
  const KernelFactory* make = nullptr;
  if (const auto own = info.kernels.find("cuda"); own != info.kernels.end())
    make = &own->second;
  else if (const GpuBackend* gpus = gpu_plugin().backend.get())
    make = gpus->kernel(info.name);
  if (!make) {
    why = "it has no CUDA implementation";
    return nullptr;
  }
  std::unique_ptr<StageKernel> kernel = (*make)(stage);
  why = kernel->why_not();
  return why.empty() ? std::move(kernel) : nullptr;
}

}  // namespace pacflow
