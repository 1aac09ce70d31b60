#include "engine/run/device_runs.hpp"

#include <algorithm>

namespace pacflow::detail {

std::vector<const DeviceBackend*> backends_used(const BuiltPipeline& built) {
  std::vector<const DeviceBackend*> used;
  for (const auto& stage : built.stages)
    if (const DeviceBackend* b = stage.devices.front().backend; std::find(used.begin(), used.end(), b) == used.end())
      used.push_back(b);
  return used;
}

DeviceRuns::DeviceRuns(const RunStart& start) {
  for (const DeviceBackend* backend : backends_used(start.built)) runs_.emplace_back(backend, backend->start(start));
}

DeviceRun& DeviceRuns::of(const BuiltStage& stage) const {
  const DeviceBackend* backend = stage.devices.front().backend;
  return *std::find_if(runs_.begin(), runs_.end(), [&](const auto& run) { return run.first == backend; })->second;
}

json DeviceRuns::report() const {
  json out = json::object();
  for (const auto& [backend, run] : runs_) out.update(run->report());
  return out;
}

}  // namespace pacflow::detail
