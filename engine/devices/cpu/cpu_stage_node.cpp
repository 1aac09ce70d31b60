#include "engine/devices/cpu/cpu_stage_node.hpp"

#include <chrono>
#include <fmt/format.h>

namespace pacflow::detail {

namespace flow = oneapi::tbb::flow;

std::unique_ptr<CpuNode> make_cpu_stage_node(flow::graph& graph, const BuiltStage& stage,
                                             const ElementReporter& reporter, std::stop_token stop,
                                             CpuDevices& devices) {
  // The whole machine needs no lease; CPU devices lend one replica per batch.
  const bool whole_machine = stage.whole_machine();
  std::shared_ptr<ReplicaLeases> lease = whole_machine ? nullptr : std::make_shared<ReplicaLeases>(stage.devices.size());
  const std::size_t concurrency = whole_machine ? std::size_t{flow::unlimited} : stage.devices.size();
  return std::make_unique<CpuNode>(
      graph, concurrency, [&stage, reporter, stop, lease, &devices, whole_machine](BatchPtr batch) {
        if (stop.stop_requested()) throw RunCancelled(-1);  // counted when run() rethrows it
        batch->stop = stop;  // for the stage's own long loops (Batch::stop)
        const Clock::time_point start = Clock::now();
        std::string device = "cpu";
        guarded("stage", stage.name, batch->index, [&] {
          if (whole_machine) {
            stage.stage->process(*batch);
            return;
          }
          const ReplicaLeases::Held held(*lease);
          const DeviceRef& where = stage.devices[held.replica()];
          device = where.name();
          naming_device(device, [&] { devices.arena(where.index).execute([&] { stage.stage->process(*batch); }); });
        });
        for (const auto& name : stage.drop_after) batch->tensors.erase(name);
        reporter.worked(device, *batch, start);
        return batch;
      });
}

}  // namespace pacflow::detail
