#pragma once
// CUDA device discovery. Safe on machines without a driver: any CUDA error means zero devices, and
// the answer says why ("no driver", "driver too old", "no GPU", or the runtime's message).
#include "engine/devices/gpu_backend.hpp"

namespace pacflow::cuda {

// Devices visible to this process (honours CUDA_VISIBLE_DEVICES), with the runtime's and driver's
// versions.
GpuAvailability visible_devices();

}  // namespace pacflow::cuda
