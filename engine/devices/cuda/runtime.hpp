#pragma once
// The GPUs of one run, and what the executor does to put batches on them and take them off:
//
// - A batch entering a GPU takes a stream of its own there (from a per-device pool) and keeps it
//   while it stays on that device, through consecutive stages: the stream travels with the batch,
//   so those stages' work is ordered by the stream, not by the host.
// - Host tensors a stage reads are copied up on that stream (true DMA from page-locked ring slots);
//   a batch arriving from another GPU is copied peer to peer (direct where the devices allow it,
//   through the host otherwise), its new stream waiting on an event of the old one (never a
//   synchronisation of either).
// - Leaving the GPU, every device tensor is copied into page-locked host buffers (pooled) and an
//   event recorded; the completion watcher sends the batch on when the event completes.
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/batch.hpp"
#include "engine/api/params.hpp"
#include "engine/api/stage_kernel.hpp"
#include "engine/devices/cuda/completions.hpp"
#include "engine/devices/cuda/device_memory.hpp"
#include "engine/devices/cuda/pinned_pool.hpp"
#include "engine/devices/cuda/stage_context.hpp"
#include "engine/placement/gpu_availability.hpp"

namespace pacflow::cuda {

class Runtime {
 public:
  // The devices the run uses (of `visible`), each with its memory budget in bytes (0: the whole
  // device, or a logical GPU's share of it); downloads land in memory from `page_locked`, which
  // must outlive the runtime.
  Runtime(const std::map<int, std::size_t>& budgets, const std::vector<GpuInfo>& visible,
          const HostAllocator& page_locked);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // The device for a batch: the candidate already holding it, else the one holding fewest batches.
  int choose(const Batch& batch, const std::vector<int>& candidates) const;
  // Puts the batch on `device` (taking a stream there, moving its device tensors if they are on
  // another GPU) and returns the context its stages' work is queued with.
  StageContext enter(Batch& batch, int device);
  // Copies the named tensors that are still on the host to the batch's device.
  void upload(Batch& batch, const std::vector<std::string>& names, const StageContext& ctx);
  // enter() and upload() of the tensors a stage reads, then its kernel's process(): one stage's work
  // for the batch, queued on `device` (`started`, if given, recorded first on the batch's stream).
  // Returns the context it was queued with.
  StageContext run_stage(StageKernel& kernel, Batch& batch, int device, const std::vector<std::string>& reads,
                         Event* started = nullptr);
  // Queues copies of every device tensor into page-locked host memory (the batch's tensors are host
  // tensors from here on, valid once the returned event completes). The batch keeps its stream
  // until release().
  Event download(Batch& batch, const StageContext& ctx);
  // Gives up the batch's device and stream (after its downloaded data arrived).
  static void release(Batch& batch);

  Completions& completions() { return completions_; }
  // cuda:<index> of the run, with the CUDA device it runs on.
  Gpu gpu(int index) const;
  // Adds the kernel time of one batch of `stage` on `device` (measured between two events).
  void add_kernel_time(int device, const std::string& stage, double ms);
  // Per device: name, memory, budget, high-water marks; and the peer links enabled.
  json report() const;

 private:
  struct Device;
  Device& device(int index) const;

  PinnedPool pinned_;
  std::map<int, std::unique_ptr<Device>> devices_;
  std::vector<std::pair<int, int>> peer_links_;     // direct copies between two CUDA devices
  std::vector<std::pair<int, int>> same_gpu_links_;  // logical GPUs of one CUDA device
  mutable std::mutex times_mutex_;
  std::map<int, std::map<std::string, std::pair<double, std::int64_t>>> kernel_ms_;  // device -> stage -> (ms, batches)
  Completions completions_;  // declared last: destroyed first, after the last watched event
};

}  // namespace pacflow::cuda
