#pragma once
// The cuda backend as the engine registers it: `cuda:k`, the k-th GPU visible to the process
// (CUDA_VISIBLE_DEVICES numbering), and `cuda` or `cuda:*` for every one (for a rank of several on a
// node, its share: engine/placement/devices.hpp). Everything it does past
// naming devices it asks of the GPU plugin (engine/devices/gpu_plugin.hpp), loaded the first time a
// GPU is asked for: without the plugin, the CUDA runtime or a GPU, it says which of those is missing.
#include "engine/placement/device_backend.hpp"
#include "engine/run/device_run.hpp"

namespace pacflow {

class CudaFront final : public DeviceBackend {
 public:
  std::string_view kind() const override { return "cuda"; }
  std::string noun() const override { return "GPU"; }
  Residency residency() const override { return Residency::Device; }
  BareKind bare() const override { return BareKind::Every; }
  bool node_shared() const override { return true; }
  int count() const override;
  std::string why_none() const override;
  std::size_t memory_bytes(int index) const override;
  std::string available() const override;
  std::vector<std::string> listing() const override;
  std::unique_ptr<StageKernel> kernel(const ElementInfo& info, const Stage& stage, std::string& why) const override;
  const HostAllocator* host_allocator() const override;
  std::unique_ptr<detail::DeviceRun> start(const detail::RunStart& start) const override;
  json provenance(bool used) const override;
};

}  // namespace pacflow
