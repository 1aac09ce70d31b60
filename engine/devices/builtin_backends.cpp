#include "engine/placement/backends.hpp"

#include "engine/devices/cpu/cpu_backend.hpp"
#include "engine/devices/cuda_front.hpp"
#include "engine/devices/sim/sim_backend.hpp"

namespace pacflow {

const DeviceBackends& builtin_device_backends() {
  static const DeviceBackends backends = [] {
    DeviceBackends made;
    made.add(std::make_unique<CpuBackend>());
    made.add(std::make_unique<SimBackend>());
    made.add(std::make_unique<CudaFront>());
    return made;
  }();
  return backends;
}

const DeviceBackend& cpu_backend() { return *builtin_device_backends().all().front(); }

}  // namespace pacflow
