#include "engine/devices/cuda/runtime.hpp"

#include <algorithm>
#include <atomic>
#include <fmt/format.h>
#include <mutex>
#include <utility>
#include <vector>

#include "engine/devices/cuda/handles.hpp"

namespace pacflow::cuda {

namespace {

// Streams of one device, each lent to one batch at a time; created as needed (the number of
// batches alive bounds them).
class StreamPool {
 public:
  explicit StreamPool(Gpu gpu) : gpu_(gpu) {}
  Stream* take() {
    const std::lock_guard lock(mutex_);
    ++resident_;
    if (!free_.empty()) {
      Stream* s = free_.back();
      free_.pop_back();
      return s;
    }
    return all_.emplace_back(std::make_unique<Stream>(gpu_)).get();
  }
  void give_back(Stream* s) {
    const std::lock_guard lock(mutex_);
    --resident_;
    free_.push_back(s);
  }
  int resident() const {
    const std::lock_guard lock(mutex_);
    return resident_;
  }
  Gpu gpu() const { return gpu_; }

 private:
  Gpu gpu_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Stream>> all_;
  std::vector<Stream*> free_;
  int resident_ = 0;
};

// A batch's hold on a device: its stream, and the host tensors whose memory a queued upload still
// reads (page-locked memory is copied by DMA after the call returns).
class Residency final : public DeviceResidency {
 public:
  explicit Residency(std::shared_ptr<StreamPool> pool) : pool_(std::move(pool)), stream_(pool_->take()) {}
  ~Residency() override { pool_->give_back(stream_); }
  Residency(const Residency&) = delete;
  Residency& operator=(const Residency&) = delete;

  int device() const { return pool_->gpu().index; }
  Gpu gpu() const { return pool_->gpu(); }
  cudaStream_t stream() const { return stream_->get(); }
  std::vector<Tensor> keep_alive;

 private:
  std::shared_ptr<StreamPool> pool_;
  Stream* stream_;
};

Residency* residency_of(const Batch& batch) { return static_cast<Residency*>(batch.residency.get()); }


}  // namespace

struct Runtime::Device {
  Device(Gpu gpu, std::size_t budget) : streams(std::make_shared<StreamPool>(gpu)), memory(gpu, budget) {}
  std::shared_ptr<StreamPool> streams;  // shared with the residencies, which may outlive the run
  DeviceMemory memory;
  Gpu gpu() const { return streams->gpu(); }
  std::string name;
  std::size_t total_bytes = 0;
  int shares = 1;
};

Runtime::Runtime(const std::map<int, std::size_t>& budgets, const std::vector<GpuInfo>& visible,
                 const HostAllocator& page_locked)
    : pinned_(page_locked) {
  for (const auto& [index, budget] : budgets) {
    const auto info = std::find_if(visible.begin(), visible.end(), [&](const GpuInfo& v) { return v.index == index; });
    if (info == visible.end()) throw Error(fmt::format("{} is not a visible GPU", device_name(index)));
    // A logical GPU's budget is at most its share of the device.
    const std::size_t share = info->shares > 1 ? info->memory_bytes : 0;
    auto d = std::make_unique<Device>(Gpu{index, info->ordinal}, budget == 0 ? share : budget);
    d->name = info->name;
    d->total_bytes = info->memory_bytes;
    d->shares = info->shares;
    devices_.emplace(index, std::move(d));
  }
  // Direct peer copies between every pair of the run's CUDA devices that allow them; logical GPUs
  // of one device copy within it.
  for (const auto& [a, da] : devices_)
    for (const auto& [b, db] : devices_) {
      if (a == b) continue;
      const int from = da->gpu().ordinal, to = db->gpu().ordinal;
      if (from == to) {
        same_gpu_links_.emplace_back(a, b);
        continue;
      }
      int can = 0;
      check(cudaDeviceCanAccessPeer(&can, from, to), "cudaDeviceCanAccessPeer");
      if (!can) continue;
      const DeviceScope on(from);
      const cudaError_t status = cudaDeviceEnablePeerAccess(to, 0);
      if (status == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
      else check(status, "cudaDeviceEnablePeerAccess");
      db->memory.allow_access_from(from);  // peer access does not extend to pools by itself
      peer_links_.emplace_back(a, b);
    }
}

Runtime::~Runtime() = default;

Runtime::Device& Runtime::device(int index) const {
  const auto it = devices_.find(index);
  if (it == devices_.end()) throw std::logic_error(fmt::format("cuda:{} is not one of the run's devices", index));
  return *it->second;
}

Gpu Runtime::gpu(int index) const { return device(index).gpu(); }

int Runtime::choose(const Batch& batch, const std::vector<int>& candidates) const {
  if (const Residency* r = residency_of(batch))
    if (std::find(candidates.begin(), candidates.end(), r->device()) != candidates.end()) return r->device();
  // Fewest batches held; ties rotate with the batch index so equal devices share the work.
  int best = -1, best_load = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const int d = candidates[(i + static_cast<std::size_t>(batch.index)) % candidates.size()];
    const int load = device(d).streams->resident();
    if (best < 0 || load < best_load) {
      best = d;
      best_load = load;
    }
  }
  return best;
}

StageContext Runtime::enter(Batch& batch, int index) {
  Device& d = device(index);
  Residency* old = residency_of(batch);
  if (old && old->device() == index) return {d.gpu(), old->stream(), d.memory};
  auto moved = std::make_unique<Residency>(d.streams);
  const StageContext ctx{d.gpu(), moved->stream(), d.memory};
  if (old) {
    // From another GPU: the new stream waits for the old one's work, copies each device tensor
    // peer to peer (within the device, between logical GPUs of one), and the old stream waits for
    // those copies before it frees the originals.
    const DeviceScope on(ctx.ordinal());
    Event ready(old->gpu(), false);
    ready.record(old->stream());
    check(cudaStreamWaitEvent(moved->stream(), ready.get(), 0), "cudaStreamWaitEvent");
    // The originals are freed (on the old stream) only when this block ends, after that stream
    // has been made to wait for the copies.
    std::vector<Tensor> originals;
    for (auto& [name, tensor] : batch.tensors) {
      if (tensor.on_host()) continue;
      SharedMemory memory = d.memory.allocate(tensor.bytes(), moved->stream());
      check(cudaMemcpyPeerAsync(memory.data, ctx.ordinal(), tensor.device_data(), old->gpu().ordinal, tensor.bytes(),
                                moved->stream()),
            "cudaMemcpyPeerAsync");
      originals.push_back(std::exchange(tensor, Tensor(tensor.shape(), tensor.dtype(), std::move(memory), ctx.device_name())));
    }
    Event copied(ctx.gpu(), false);
    copied.record(moved->stream());
    check(cudaStreamWaitEvent(old->stream(), copied.get(), 0), "cudaStreamWaitEvent");
    moved->keep_alive = std::move(old->keep_alive);
  }
  batch.residency = std::move(moved);  // the old residency (if any) gives its stream back here
  return ctx;
}

void Runtime::upload(Batch& batch, const std::vector<std::string>& names, const StageContext& ctx) {
  Residency* r = residency_of(batch);
  if (!r || r->device() != ctx.device()) throw std::logic_error("upload to a device the batch is not on");
  const DeviceScope on(ctx.ordinal());
  for (const auto& name : names) {
    Tensor& host = batch.at(name);
    if (!host.on_host()) continue;
    SharedMemory memory = device(ctx.device()).memory.allocate(host.bytes(), ctx.stream());
    check(cudaMemcpyAsync(memory.data, host.raw(), host.bytes(), cudaMemcpyHostToDevice, ctx.stream()),
          "cudaMemcpyAsync (host to device)");
    Tensor on_device(host.shape(), host.dtype(), std::move(memory), ctx.device_name());
    r->keep_alive.push_back(std::exchange(host, std::move(on_device)));
  }
}

StageContext Runtime::run_stage(StageKernel& kernel, Batch& batch, int device, const std::vector<std::string>& reads,
                                Event* started) {
  // Kernels and cuFFT calls go to the current device, which must be the one of the batch's stream.
  const DeviceScope on(gpu(device).ordinal);
  StageContext ctx = enter(batch, device);
  if (started) started->record(ctx.stream());
  upload(batch, reads, ctx);
  kernel.process(batch, ctx);
  return ctx;
}

Event Runtime::download(Batch& batch, const StageContext& ctx) {
  const DeviceScope on(ctx.ordinal());
  for (auto& [name, tensor] : batch.tensors) {
    if (tensor.on_host()) continue;
    SharedMemory memory = pinned_.take(tensor.bytes());
    check(cudaMemcpyAsync(memory.data, tensor.device_data(), tensor.bytes(), cudaMemcpyDeviceToHost, ctx.stream()),
          "cudaMemcpyAsync (device to host)");
    tensor = Tensor(tensor.shape(), tensor.dtype(), std::move(memory), "cpu");
  }
  Event done(ctx.gpu(), false);
  done.record(ctx.stream());
  return done;
}

void Runtime::release(Batch& batch) { batch.residency.reset(); }

void Runtime::add_kernel_time(int device, const std::string& stage, double ms) {
  const std::lock_guard lock(times_mutex_);
  auto& [total, batches] = kernel_ms_[device][stage];
  total += ms;
  ++batches;
}

json Runtime::report() const {
  json devices = json::array();
  const std::lock_guard lock(times_mutex_);
  for (const auto& [index, d] : devices_) {
    json kernels = json::object();
    if (const auto it = kernel_ms_.find(index); it != kernel_ms_.end())
      for (const auto& [stage, time] : it->second)
        kernels[stage] = {{"kernel_s", time.first * 1e-3}, {"batches", time.second}};
    json entry = {{"device", device_name(index)},
                  {"name", d->name},
                  {"memory_bytes", d->total_bytes},
                  {"budget_bytes", d->memory.budget()},
                  {"tensors_high_water_bytes", d->memory.high_water()},
                  {"pool_reserved_high_water_bytes", d->memory.pool_reserved_high_water()},
                  {"stages", kernels}};
    if (d->shares > 1) {
      entry["cuda_device"] = d->gpu().ordinal;
      entry["logical_per_gpu"] = d->shares;
    }
    devices.push_back(std::move(entry));
  }
  const auto named = [](const std::vector<std::pair<int, int>>& links) {
    json out = json::array();
    for (const auto& [a, b] : links) out.push_back({device_name(a), device_name(b)});
    return out;
  };
  json out = {{"devices", devices}, {"peer_links", named(peer_links_)}, {"pinned_host_bytes", pinned_.bytes_held()}};
  if (!same_gpu_links_.empty()) out["same_gpu_links"] = named(same_gpu_links_);
  return out;
}

}  // namespace pacflow::cuda
