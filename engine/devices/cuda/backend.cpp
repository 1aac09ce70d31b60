// The cuda backend: what libpacflow_cuda.so gives the engine (engine/devices/gpu_backend.hpp) through its
// entry points (stages/cuda_plugin.cpp).
#include "engine/devices/cuda/backend.hpp"

#include <cstdlib>
#include <fmt/format.h>

#include "engine/devices/cuda/cuda_devices.hpp"
#include "engine/devices/cuda/gpu_stage_node.hpp"
#include "engine/devices/cuda/kernel.hpp"
#include "engine/devices/cuda/pinned_host.hpp"
#include "engine/devices/cuda/runtime.hpp"

namespace pacflow::cuda {

namespace {

class CudaRun final : public GpuRun {
 public:
  CudaRun(const std::map<int, std::size_t>& budgets, const std::vector<GpuInfo>& visible,
          const HostAllocator& page_locked, detail::FirstFailure& failure)
      : runtime_(budgets, visible, page_locked), failure_(failure) {}

  std::unique_ptr<detail::GpuNode> make_node(oneapi::tbb::flow::graph& graph, const detail::BuiltStage& stage,
                                             bool stays, const detail::ElementReporter& reporter) override {
    if (!stage.device_kernel) throw std::logic_error(fmt::format("stage \"{}\" is on a GPU without a kernel", stage.name));
    return detail::make_gpu_stage_node(graph, stage, stays, reporter, runtime_, failure_);
  }

  void queue(StageKernel& kernel, Batch& batch, int device, const std::vector<std::string>& reads) override {
    runtime_.run_stage(kernel, batch, device, reads);
  }

  void bring_home(Batch& batch, int device) override {
    if (!batch.residency) return;
    const StageContext ctx = runtime_.enter(batch, device);
    runtime_.download(batch, ctx).wait();
    Runtime::release(batch);
  }

  json report() const override { return runtime_.report(); }

 private:
  Runtime runtime_;
  detail::FirstFailure& failure_;
};

class CudaBackend final : public GpuBackend {
 public:
  explicit CudaBackend(std::map<std::string, KernelFactory> kernels)
      : kernels_(std::move(kernels)), availability_(find_devices()) {}

  GpuAvailability availability() const override { return availability_; }

  const KernelFactory* kernel(const std::string& element) const override {
    const auto it = kernels_.find(element);
    return it == kernels_.end() ? nullptr : &it->second;
  }

  const HostAllocator& page_locked() const override { return page_locked_; }

  std::unique_ptr<GpuRun> start(const std::map<int, std::size_t>& budgets, detail::FirstFailure& failure) override {
    return std::make_unique<CudaRun>(budgets, availability_.devices, page_locked_, failure);
  }

 private:
  // The visible GPUs, each as PACFLOW_LOGICAL_GPUS logical ones; none, saying why, when its value
  // is not a number of them.
  static GpuAvailability find_devices() {
    const LogicalGpus logical = parse_logical_gpus(std::getenv(kLogicalGpusVariable));
    GpuAvailability found = visible_devices(logical.per_gpu);
    if (!logical.error.empty()) {
      found.devices.clear();
      found.why_none = logical.error;
    }
    return found;
  }

  std::map<std::string, KernelFactory> kernels_;
  GpuAvailability availability_;
  PageLockedHost page_locked_;
};

}  // namespace

std::unique_ptr<GpuBackend> make_cuda_backend(std::map<std::string, KernelFactory> kernels) {
  return std::make_unique<CudaBackend>(std::move(kernels));
}

}  // namespace pacflow::cuda
