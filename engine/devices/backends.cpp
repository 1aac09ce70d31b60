#include "engine/devices/backends.hpp"

#include <fmt/format.h>
#include <stdexcept>

#include "engine/devices/cpu/cpu_backend.hpp"
#include "engine/devices/cuda_front.hpp"
#include "engine/devices/sim/sim_backend.hpp"

namespace pacflow {

void DeviceBackends::add(std::unique_ptr<DeviceBackend> backend) {
  if (find(backend->kind())) throw std::logic_error(fmt::format("device kind \"{}\" registered twice", backend->kind()));
  backends_.push_back(std::move(backend));
}

const DeviceBackend* DeviceBackends::find(std::string_view kind) const {
  for (const auto& b : backends_)
    if (b->kind() == kind) return b.get();
  return nullptr;
}

std::string DeviceBackends::kinds() const {
  std::string out;
  for (const auto& b : backends_) out += (out.empty() ? "" : ", ") + std::string(b->kind());
  return out;
}

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
