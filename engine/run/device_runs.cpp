#include "engine/run/device_runs.hpp"

#include <fmt/format.h>

#include "engine/devices/placement.hpp"
#include "engine/devices/sim_device.hpp"
#include "engine/run/stage_nodes.hpp"

namespace pacflow::detail {

// cpu and cpu:k: the stage's body runs on the graph's workers, or inside its replica's arena.
class CpuRun final : public DeviceRun {
 public:
  CpuRun(const std::vector<BuiltStage>& stages, std::stop_token stop) : devices_(stages), stop_(std::move(stop)) {}
  StageNode make_node(oneapi::tbb::flow::graph& graph, const BuiltStage& stage, const BuiltStage*,
                      const ElementReporter& reporter) override {
    return StageNode(make_cpu_stage_node(graph, stage, reporter, stop_, devices_));
  }
  int threads_each() const { return devices_.threads_each(); }

 private:
  CpuDevices devices_;
  std::stop_token stop_;
};

// sim:k: the model's clock releases each batch; it stays on its device when the next stage is there too.
class SimRun final : public DeviceRun {
 public:
  explicit SimRun(const SimModel& model) : devices_(model) {}
  StageNode make_node(oneapi::tbb::flow::graph& graph, const BuiltStage& stage, const BuiltStage* next,
                      const ElementReporter& reporter) override {
    return StageNode(make_sim_stage_node(graph, stage, next && next->simulated(), reporter, devices_, due_));
  }

 private:
  SimDevices devices_;
  DueTimeQueue due_;  // declared last: destroyed (joined) first, while the devices it books on exist
};

// GPUs: the backend's own node. The batch stays on its GPU when the next stage also runs on GPUs
// (no ring between them: the stream orders their work).
class GpuRunPart final : public DeviceRun {
 public:
  explicit GpuRunPart(GpuRun& gpus) : gpus_(gpus) {}
  StageNode make_node(oneapi::tbb::flow::graph& graph, const BuiltStage& stage, const BuiltStage* next,
                      const ElementReporter& reporter) override {
    const bool stays = next && next->on_gpu() && !next->ring_before;
    return StageNode(gpus_.make_node(graph, stage, stays, reporter));
  }

 private:
  GpuRun& gpus_;
};

DeviceRuns::DeviceRuns(const std::vector<BuiltStage>& stages, const RunOptions& options, GpuRun* gpus) {
  for (const auto& stage : stages) {
    const DeviceRef::Kind kind = stage.devices.front().kind;
    if (runs_.contains(kind)) continue;
    switch (kind) {  // the run's device backends, by the kind they serve
      case DeviceRef::Kind::Cpu: {
        auto cpu = std::make_unique<CpuRun>(stages, options.stop);
        cpu_ = cpu.get();
        runs_.emplace(kind, std::move(cpu));
        break;
      }
      case DeviceRef::Kind::Sim: runs_.emplace(kind, std::make_unique<SimRun>(options.sim_model)); break;
      case DeviceRef::Kind::Cuda:
        if (!gpus) throw std::logic_error(fmt::format("stage \"{}\" is on a GPU, but the run has none", stage.name));
        runs_.emplace(kind, std::make_unique<GpuRunPart>(*gpus));
        break;
    }
  }
}

DeviceRuns::~DeviceRuns() = default;

DeviceRun& DeviceRuns::of(const BuiltStage& stage) const { return *runs_.at(stage.devices.front().kind); }

int DeviceRuns::threads_per_cpu_device() const { return cpu_ ? cpu_->threads_each() : 0; }

}  // namespace pacflow::detail
