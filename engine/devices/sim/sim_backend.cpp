#include "engine/devices/sim/sim_backend.hpp"

#include <fmt/format.h>

#include "engine/api/pipeline.hpp"
#include "engine/devices/sim/sim_stage_node.hpp"

namespace pacflow {

namespace {

// sim:k in one run: the model's clock releases each batch; it stays on its device when the next
// stage is on sim devices too.
class SimRun final : public detail::DeviceRun {
 public:
  explicit SimRun(const SimModel& model) : devices_(model) {}
  detail::StageNode make_node(oneapi::tbb::flow::graph& graph, const detail::BuiltStage& stage,
                              const detail::BuiltStage* next, const detail::ElementReporter& reporter) override {
    const bool next_here = next && next->residency() == Residency::Modelled;
    return detail::StageNode(detail::make_sim_stage_node(graph, stage, next_here, reporter, devices_, due_));
  }
  json report() const override { return {{"sim_model", devices_.model().name}}; }

 private:
  SimDevices devices_;
  DueTimeQueue due_;  // declared last: destroyed (joined) first, while the devices it books on exist
};

}  // namespace

std::string SimBackend::available() const { return fmt::format("sim:0 to sim:{} (modelled)", kSimDeviceLimit - 1); }

std::vector<std::string> SimBackend::listing() const {
  const SimModel sim;
  return {fmt::format("sim:0-{} modelled accelerators (no arithmetic; outputs are zero stand-ins): {:.0f} TFLOPS, "
                      "{:.2f} TB/s memory, {:.0f} GB/s each way to the host (an H100 SXM on PCIe Gen5)",
                      kSimDeviceLimit - 1, sim.flops_per_s / 1e12, sim.memory_bytes_per_s / 1e12,
                      sim.host_to_device_bytes_per_s / 1e9)};
}

std::unique_ptr<detail::DeviceRun> SimBackend::start(const detail::RunStart& start) const {
  return std::make_unique<SimRun>(start.options.sim_model);
}

}  // namespace pacflow
