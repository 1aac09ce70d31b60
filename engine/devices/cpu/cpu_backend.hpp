#pragma once
// The cpu backend: `cpu` (the whole machine, the default oneTBB arena) and `cpu:k` (a task_arena
// each, sharing the machine's threads evenly among those a run uses). A stage's own code runs on the
// batch in host memory.
#include "engine/placement/device_backend.hpp"
#include "engine/run/device_run.hpp"

namespace pacflow {

class CpuBackend final : public DeviceBackend {
 public:
  std::string_view kind() const override { return "cpu"; }
  Residency residency() const override { return Residency::Host; }
  BareKind bare() const override { return BareKind::WholeMachine; }
  int count() const override;
  std::string available() const override;
  std::vector<std::string> listing() const override;
  std::unique_ptr<detail::DeviceRun> start(const detail::RunStart& start) const override;
};

}  // namespace pacflow
