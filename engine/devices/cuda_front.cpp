#include "engine/devices/cuda_front.hpp"

#include <fmt/format.h>
#include <stdexcept>

#include "engine/devices/gpu_plugin.hpp"
#include "engine/placement/devices.hpp"
#include "engine/plan/built_pipeline.hpp"

namespace pacflow {

namespace {

// The run's GPUs, with the plugin's node for each stage placed on them. A batch stays on its GPU
// when the next stage also runs on GPUs with no ring between them: the stream orders their work.
class CudaRun final : public detail::DeviceRun {
 public:
  CudaRun(std::unique_ptr<GpuRun> gpus, const DeviceBackend& cuda) : gpus_(std::move(gpus)), cuda_(cuda) {}
  detail::StageNode make_node(oneapi::tbb::flow::graph& graph, const detail::BuiltStage& stage,
                              const detail::BuiltStage* next, const detail::ElementReporter& reporter) override {
    const bool stays = next && next->devices.front().backend == &cuda_ && !next->ring_before;
    return detail::StageNode(gpus_->make_node(graph, stage, stays, reporter));
  }
  json report() const override { return {{"gpu", gpus_->report()}}; }

 private:
  std::unique_ptr<GpuRun> gpus_;
  const DeviceBackend& cuda_;
};

}  // namespace

int CudaFront::count() const { return cuda_availability().count(); }

std::string CudaFront::why_none() const { return count() == 0 ? cuda_availability().why_none : std::string(); }

std::size_t CudaFront::memory_bytes(int index) const {
  const GpuAvailability& gpus = cuda_availability();
  return index >= 0 && index < gpus.count() ? gpus.devices[static_cast<std::size_t>(index)].memory_bytes : 0;
}

std::string CudaFront::available() const {
  const int gpus = count();
  return gpus == 0 ? "" : gpus == 1 ? "cuda:0" : fmt::format("cuda:0 to cuda:{}", gpus - 1);
}

std::vector<std::string> CudaFront::listing() const {
  // The plugin is loaded here: the line says why there are no GPUs when there are none.
  const GpuPlugin& plugin = gpu_plugin();
  std::vector<std::string> lines;
  if (plugin.availability.devices.empty()) lines.push_back("cuda     none: " + plugin.availability.why_none);
  for (const auto& d : plugin.availability.devices) {
    const double gib = static_cast<double>(d.memory_bytes) / 0x1p30;
    if (d.shares > 1)
      lines.push_back(fmt::format("cuda:{:<3} {}, {:.1f} GiB, compute capability {}.{}: logical GPU {} of {} on CUDA "
                                  "device {} (PACFLOW_LOGICAL_GPUS)",
                                  d.index, d.name, gib, d.compute_major, d.compute_minor, d.index % d.shares + 1,
                                  d.shares, d.ordinal));
    else
      lines.push_back(fmt::format("cuda:{:<3} {}, {:.1f} GiB, compute capability {}.{} (CUDA_VISIBLE_DEVICES numbering)",
                                  d.index, d.name, gib, d.compute_major, d.compute_minor));
  }
  if (plugin.backend) lines.push_back(fmt::format("         {}; plugin {}", plugin.availability.versions, plugin.path.string()));
  return lines;
}

std::unique_ptr<StageKernel> CudaFront::kernel(const ElementInfo& info, const Stage& stage, std::string& why) const {
  return gpu_kernel(info, stage, why);
}

const HostAllocator* CudaFront::host_allocator() const {
  const GpuBackend* gpus = gpu_plugin().backend.get();
  return gpus ? &gpus->page_locked() : nullptr;
}

std::unique_ptr<detail::DeviceRun> CudaFront::start(const detail::RunStart& start) const {
  GpuBackend* gpus = gpu_plugin().backend.get();
  if (!gpus) throw std::logic_error("a stage was placed on a GPU without the GPU backend");
  return std::make_unique<CudaRun>(gpus->start(detail::gpu_budgets(start.built), start.failure), *this);
}

// The GPUs (device, name, memory), or `gpus_none` with why there are none. A run on the CPU alone
// never loads the plugin, so it does not list them (`gpus_none` says so).
json CudaFront::provenance(bool used) const {
  json gpus = json::array();
  if (!used) return {{"gpus", gpus}, {"gpus_none", "not probed: no stage ran on a GPU"}};
  const GpuAvailability& cuda = cuda_availability();
  for (const GpuInfo& gpu : cuda.devices) {
    json entry = {{"device", DeviceRef{this, gpu.index}.name()}, {"name", gpu.name}, {"memory_bytes", gpu.memory_bytes}};
    if (gpu.shares > 1) {  // PACFLOW_LOGICAL_GPUS
      entry["cuda_device"] = gpu.ordinal;
      entry["logical_per_gpu"] = gpu.shares;
    }
    gpus.push_back(std::move(entry));
  }
  json out = {{"gpus", gpus}};
  if (gpus.empty()) out["gpus_none"] = cuda.why_none;
  return out;
}

}  // namespace pacflow
