#pragma once
// CUDA device discovery. Safe on machines without a driver: any CUDA error means zero devices, and
// the answer says why ("no driver", "driver too old", "no GPU", or the runtime's message).
//
// Logical GPUs: with PACFLOW_LOGICAL_GPUS=N every visible GPU is presented as N devices, each with
// its own streams, memory pool and memory budget (1/N of the GPU unless vram= says otherwise), so
// that replication, stage-per-device pinning, rings between GPUs, device-to-device copies and the
// current-device handling of a multi-GPU run all run on a machine with one GPU. Their results are
// those of any other placement; their speed is one GPU's.
#include <string>
#include <vector>

#include "engine/devices/gpu_backend.hpp"

namespace pacflow::cuda {

inline constexpr const char* kLogicalGpusVariable = "PACFLOW_LOGICAL_GPUS";
inline constexpr int kMaxLogicalGpus = 64;

// Logical GPUs per GPU from the variable's value (null: unset, 1), or why the value is not one.
struct LogicalGpus {
  int per_gpu = 1;
  std::string error;
};
LogicalGpus parse_logical_gpus(const char* value);

// GPUs presented as `per_gpu` logical devices each: GPU g's are cuda:g·per_gpu … cuda:(g + 1)·per_gpu − 1,
// each with the GPU's name and 1/per_gpu of its memory.
std::vector<GpuInfo> split_into_logical(const std::vector<GpuInfo>& gpus, int per_gpu);

// Devices visible to this process (honours CUDA_VISIBLE_DEVICES), each as `per_gpu` logical ones,
// with the runtime's and driver's versions.
GpuAvailability visible_devices(int per_gpu = 1);

}  // namespace pacflow::cuda
