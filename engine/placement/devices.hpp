#pragma once
// Devices a stage can run on, and the lists users write to name them (`on=cpu:1`,
// `on=cpu:0,1`, `on=cpu:0-3`, `on=cpu:*`, `--devices cuda:0,2`).
//
// - `cpu` is the whole machine: the default oneTBB arena, every thread.
// - `cpu:k` (0 <= k < threads) is one CPU device: a oneTBB task_arena of its own, so a stage pinned
//   there runs beside, not among, stages pinned elsewhere. The machine's threads are shared evenly
//   among the cpu:k devices a pipeline uses (at least one each).
// - `cuda:k` is the k-th GPU visible to the process (CUDA_VISIBLE_DEVICES renumbers them, as the
//   CUDA runtime does); `cuda` and `cuda:*` are every visible GPU. Only where the CUDA plugin loads
//   and a GPU is visible: otherwise naming one is a DeviceUnavailable error (the caller may fall back
//   to the CPU).
// - `sim:k` (0 <= k < 64) is a modelled accelerator (sim/sim_device.hpp): it does no arithmetic and
//   takes the time its model gives for the stage's work and copies; `sim:*` is sim:0-7.
// A stage given several devices is replicated: each batch goes to whichever replica is free.
// Each kind is a backend (engine/placement/device_backend.hpp) that says which of its devices exist;
// this file only reads the lists.
#include <cstddef>
#include <string>
#include <vector>

#include "engine/api/errors.hpp"
#include "engine/placement/gpu_availability.hpp"

namespace pacflow {

class DeviceBackend;
class DeviceBackends;
const DeviceBackend& cpu_backend();
const DeviceBackends& builtin_device_backends();

struct DeviceRef {
  const DeviceBackend* backend = &cpu_backend();  // its kind (engine/placement/device_backend.hpp)
  int index = -1;                                 // -1: the whole machine (`cpu`)

  std::string name() const;  // "cpu", "cpu:3", "sim:0", "cuda:1"
  bool operator==(const DeviceRef&) const = default;
};

// CPU devices this machine offers (oneTBB's default concurrency).
int cpu_device_count();

// GPUs visible to this process: their count, and why there are none ("library not installed", "no
// driver", "driver too old", "no GPU": engine/devices/gpu_plugin.hpp) when there are none. Asked once per
// process; the first call loads the GPU backend's plugin. Defined with the plugin's loader, like
// builtin_device_backends() with the built-in backends (engine/devices/).
const GpuAvailability& cuda_availability();

// A list names devices of a kind this machine has none of (GPUs where none is visible): the
// caller may fall back to the CPU.
class DeviceUnavailable : public ParamError {
 public:
  DeviceUnavailable(const std::string& param, const std::string& message, std::string why_none)
      : ParamError(param, message), why_none_(std::move(why_none)) {}
  // Why there are none of them here (DeviceBackend::why_none).
  const std::string& why_none() const { return why_none_; }

 private:
  std::string why_none_;
};

// The processes of one run on this node (ranks: engine/api/rank_link.hpp), and which of them this
// one is. A kind whose devices the node's processes share (DeviceBackend::node_shared: GPUs) names,
// as `kind` or `kind:*`, this process's share of its G devices rather than all of them: with at least
// as many processes as devices, device (local_rank mod G), as cluster launchers pair ranks with GPUs;
// with fewer, every device g with g mod local_size == local_rank, so none stays idle. A list of
// indices (`cuda:1`) names those devices in every process.
struct DeviceShare {
  int local_rank = 0;
  int local_size = 1;
};

// Parses a device list against `backends`; throws ParamError (parameter `param`) with the accepted
// forms and the devices available when the text is malformed, names an unknown kind or an absent
// device, and DeviceUnavailable when it names a kind of device that is not there.
std::vector<DeviceRef> parse_devices(const std::string& text, const std::string& param = "on",
                                     const DeviceBackends& backends = builtin_device_backends(),
                                     const DeviceShare& share = {});

// "cpu:0,1" style text for a list (one kind per list).
std::string device_list_name(const std::vector<DeviceRef>& devices);

}  // namespace pacflow
