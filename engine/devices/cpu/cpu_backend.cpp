#include "engine/devices/cpu/cpu_backend.hpp"

#include <fmt/format.h>

#include "engine/api/pipeline.hpp"
#include "engine/devices/cpu/cpu_devices.hpp"
#include "engine/devices/cpu/cpu_stage_node.hpp"
#include "engine/placement/devices.hpp"

namespace pacflow {

namespace {

// cpu and cpu:k in one run: the stage's body runs on the graph's workers, or inside its replica's arena.
class CpuRun final : public detail::DeviceRun {
 public:
  CpuRun(const detail::RunStart& start, const DeviceBackend& cpu)
      : devices_(start.built.stages, cpu), stop_(start.options.stop) {}
  detail::StageNode make_node(oneapi::tbb::flow::graph& graph, const detail::BuiltStage& stage,
                              const detail::BuiltStage*, const detail::ElementReporter& reporter) override {
    return detail::StageNode(detail::make_cpu_stage_node(graph, stage, reporter, stop_, devices_));
  }
  json report() const override { return {{"threads_per_cpu_device", devices_.threads_each()}}; }

 private:
  detail::CpuDevices devices_;
  std::stop_token stop_;
};

}  // namespace

int CpuBackend::count() const { return cpu_device_count(); }

std::string CpuBackend::available() const {
  const int n = count();
  return n == 1 ? std::string("cpu, cpu:0") : fmt::format("cpu, cpu:0 to cpu:{}", n - 1);
}

std::vector<std::string> CpuBackend::listing() const {
  std::vector<std::string> lines{fmt::format("cpu      the whole machine, {} threads (oneTBB default concurrency); the default", count())};
  for (int k = 0; k < count(); ++k)
    lines.push_back(fmt::format("cpu:{:<4} a CPU device of its own (task arena); the threads are shared among those a "
                                "run uses", k));
  return lines;
}

std::unique_ptr<detail::DeviceRun> CpuBackend::start(const detail::RunStart& start) const {
  return std::make_unique<CpuRun>(start, *this);
}

}  // namespace pacflow
