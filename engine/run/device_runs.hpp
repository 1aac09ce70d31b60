#pragma once
// Internal to the executor: the part of one run of each device backend its stages are placed on
// (engine/placement/device_backend.hpp). The run graph asks the part of a stage's backend for the
// stage's node and never looks at the kind of device.
#include <memory>
#include <utility>
#include <vector>

#include "engine/placement/device_backend.hpp"
#include "engine/plan/built_pipeline.hpp"
#include "engine/run/device_run.hpp"

namespace pacflow::detail {

class DeviceRuns {
 public:
  // Starts the part of each backend that a stage of `start.built` is placed on, in stage order.
  explicit DeviceRuns(const RunStart& start);

  DeviceRun& of(const BuiltStage& stage) const;
  // What the backends add to result.json's `run`.
  json report() const;

 private:
  std::vector<std::pair<const DeviceBackend*, std::unique_ptr<DeviceRun>>> runs_;
};

// The backends a stage of `built` is placed on, in stage order.
std::vector<const DeviceBackend*> backends_used(const BuiltPipeline& built);

}  // namespace pacflow::detail
