#include "engine/devices/sim/sim_backend.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <set>
#include <string>

#include "engine/api/pipeline.hpp"
#include "engine/devices/sim/sim_stage_node.hpp"

namespace pacflow {

namespace {

// The outputs of a sim stage that no one will look at: intermediates that only other sim stages read
// (which do no arithmetic), that never cross a ring and are no result. Their zero-filled stand-ins
// are not made, sparing the host their memory and writing (W2's band-passed and analytic signals:
// 1.3 MB a series), so that a modelled run measures the model rather than this machine's memory.
std::set<std::string> unread_stand_ins(const detail::BuiltPipeline& built, const detail::BuiltStage& stage) {
  std::set<std::string> unread;
  for (const auto& out : stage.outputs)
    if (!out.result && !out.summary) unread.insert(out.name);  // kept ones: its summary is modelled too
  for (const auto& other : built.stages) {
    for (const auto& crossing : other.crossing) unread.erase(crossing.name);
    if (!other.simulated())
      for (const auto& name : other.reads) unread.erase(name);
  }
  for (const auto& sink : built.sinks)
    for (const auto& name : sink.reads) unread.erase(name);
  return unread;
}

// sim:k in one run: the model's clock releases each batch; it stays on its device when the next
// stage is on sim devices too.
class SimRun final : public detail::DeviceRun {
 public:
  SimRun(const detail::BuiltPipeline& built, const SimModel& model) : built_(built), devices_(model) {}
  detail::StageNode make_node(oneapi::tbb::flow::graph& graph, const detail::BuiltStage& stage,
                              const detail::BuiltStage* next, const detail::ElementReporter& reporter) override {
    const bool next_here = next && next->residency() == Residency::Modelled;
    return detail::StageNode(detail::make_sim_stage_node(graph, stage, unread_stand_ins(built_, stage), next_here,
                                                         reporter, devices_, due_));
  }
  json report() const override { return {{"sim_model", devices_.model().name}}; }
  // The summary's finish split evenly over the stage's devices, each first receiving its share of
  // the others' partial sums peer to peer (a reduce-scatter).
  detail::Clock::time_point book_summary_finish(const detail::BuiltStage& stage, const SummaryWork& work) override {
    const detail::Clock::time_point now = detail::Clock::now();
    detail::Clock::time_point done = now;
    const auto count = static_cast<double>(stage.devices.size());
    const double partial_sums = work.state_bytes * (count - 1) / count / count;  // from the others' shares
    for (std::size_t i = 0; i < stage.devices.size(); ++i) {
      const int device = stage.devices[i].index;
      const int peer = stage.devices[(i + 1) % stage.devices.size()].index;
      const SimWork share{work.finish_flops / count, work.finish_bytes / count, partial_sums, 0, peer, true,
                          devices_.model().flops_per_s_of(stage.name)};
      done = std::max(done, devices_.book({device}, share, now).done);
    }
    return done;
  }

 private:
  const detail::BuiltPipeline& built_;
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
  return std::make_unique<SimRun>(start.built, start.options.sim_model);
}

}  // namespace pacflow
