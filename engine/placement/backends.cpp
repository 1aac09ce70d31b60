#include "engine/placement/backends.hpp"

#include <fmt/format.h>
#include <stdexcept>

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

}  // namespace pacflow
