#pragma once
// The GPU backend as the engine sees it: an interface with no CUDA types, implemented by the cuda
// plugin (engine/devices/cuda/backend.cpp, libpacflow_cuda.so) and loaded at run time by gpu_plugin(), so
// the engine, the CLI and anything else linking it run on machines without the CUDA runtime.
//
// The backend enumerates the GPUs (or says why there are none), offers a kernel for each stage it
// can run (engine/api/stage_kernel.hpp), page-locks host memory for the rings, and, for one run, makes
// the flow-graph node of each stage placed on GPUs and the GPU part of the run's report.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <oneapi/tbb/flow_graph.h>

#include "engine/api/stage_kernel.hpp"
#include "engine/placement/gpu_availability.hpp"
#include "engine/plan/built_pipeline.hpp"
#include "engine/run/element_reporter.hpp"
#include "engine/run/pinned_memory.hpp"
#include "engine/run/run_support.hpp"

namespace pacflow {

namespace detail {
using GpuNode = oneapi::tbb::flow::async_node<BatchPtr, BatchPtr>;
}

// One run's GPUs, from its first batch until after the graph is destroyed.
class GpuRun {
 public:
  virtual ~GpuRun() = default;
  // The node of a stage placed on GPUs (its kernel is stage.device_kernel): its body queues a batch's
  // copies and kernels and returns without waiting; the batch goes on at once when `stays` (the next
  // stage runs on GPUs, ordered by the batch's stream), else once its outputs are back on the host.
  // A failure the device reports later cancels the graph and is rethrown by the run.
  // Its work, spans and kernel times go to `reporter`.
  virtual std::unique_ptr<detail::GpuNode> make_node(oneapi::tbb::flow::graph& graph, const detail::BuiltStage& stage,
                                                     bool stays, const detail::ElementReporter& reporter) = 0;
  // Outside a graph (tests, tools): queues `kernel`'s work for `batch` on `device`, after uploading
  // the tensors named in `reads`; the batch stays there. bring_home() waits for its tensors to be
  // back on the host and releases the device.
  virtual void queue(StageKernel& kernel, Batch& batch, int device, const std::vector<std::string>& reads) = 0;
  virtual void bring_home(Batch& batch, int device) = 0;
  // Per device: name, memory, budget, high-water marks, kernel times; the peer links enabled.
  virtual json report() const = 0;
};

class GpuBackend {
 public:
  virtual ~GpuBackend() = default;
  virtual GpuAvailability availability() const = 0;
  // The kernel factory the backend has for stage `element` (a registry name), or null.
  virtual const KernelFactory* kernel(const std::string& element) const = 0;
  // Page-locked host memory the GPUs copy to and from by DMA (the rings' slots).
  virtual const HostAllocator& page_locked() const = 0;
  // The run's devices, each with its memory budget in bytes (0: the whole device). A device failure
  // seen outside the graph's workers goes to `failure`.
  virtual std::unique_ptr<GpuRun> start(const std::map<int, std::size_t>& budgets, detail::FirstFailure& failure) = 0;
};

// The plugin's entry points (extern "C", looked up by name): its interface version, which must equal
// kGpuBackendAbi and PACFLOW_VERSION, and the backend itself.
inline constexpr int kGpuBackendAbi = 3;
using GpuBackendAbiFn = int (*)();
using GpuBackendVersionFn = const char* (*)();
using MakeGpuBackendFn = void (*)(std::unique_ptr<GpuBackend>* out);

}  // namespace pacflow
