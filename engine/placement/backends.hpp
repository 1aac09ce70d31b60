#pragma once
// The device backends a process can place stages on, found by the kind device lists name. The
// built-in set is cpu, sim and cuda (the last answers "none here, because …" until its plugin loads
// and finds a GPU); a program may make its own set with further backends (tests do) and parse
// device lists against it (engine/placement/devices.hpp).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/placement/device_backend.hpp"

namespace pacflow {

class DeviceBackends {
 public:
  // Adds a backend. Throws std::logic_error for a kind taken.
  void add(std::unique_ptr<DeviceBackend> backend);
  const DeviceBackend* find(std::string_view kind) const;
  const std::vector<std::unique_ptr<DeviceBackend>>& all() const { return backends_; }
  // "cpu, sim, cuda": the kinds, in the order they were added.
  std::string kinds() const;

 private:
  std::vector<std::unique_ptr<DeviceBackend>> backends_;
};

// cpu, sim and cuda; made once per process, never changed.
const DeviceBackends& builtin_device_backends();
// The default device's backend: every stage not placed elsewhere runs there.
const DeviceBackend& cpu_backend();

}  // namespace pacflow
