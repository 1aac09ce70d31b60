#pragma once
// A kind of device stages can be placed on, behind one interface and registered by its name like an
// element (engine/placement/backends.hpp): cpu (engine/devices/cpu), sim (engine/devices/sim) and
// cuda (engine/devices/cuda_front.hpp, in front of the plugin the engine loads when a GPU is asked
// for).
//
// The engine asks a stage's backend for everything that differs between kinds of device, and never
// looks at the kind itself: which devices exist (or why none do), what `kind` and `kind:*` name,
// where a batch's tensors are while the stage works on them, the stage's kernel for the devices,
// page-locked memory for the rings, its part of one run (the node that runs each stage, its lines of
// the report: engine/run/device_run.hpp), and what the provenance says of its devices.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/json_text.hpp"
#include "engine/api/registry.hpp"
#include "engine/api/stage_kernel.hpp"
#include "engine/placement/host_allocator.hpp"

namespace pacflow {

// Where a batch's tensors are while a stage on the backend's devices works on them.
enum class Residency {
  Host,      // in host memory: the stage's own code runs on the batch (branches of one batch share it)
  Modelled,  // nowhere: a modelled device takes its model's time and leaves zero-filled stand-ins
  Device,    // in the devices' own memory: a kernel the backend offers runs there, and a batch moves
             // device to device between two stages on the backend's devices (no ring between them)
};

// What the bare kind (`on=cpu`, `on=cuda`) names.
enum class BareKind {
  WholeMachine,  // one device of index -1: every thread (cpu)
  Every,         // every device, as kind:* (cuda)
  Refused,       // nothing: an index is needed (sim)
};

namespace detail {
class DeviceRun;  // a backend's part of one run (engine/run/device_run.hpp)
struct RunStart;
}  // namespace detail

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  // The word device lists use for it: `on=cpu:1`, `--devices sim:0-7`.
  virtual std::string_view kind() const = 0;
  // What one of its devices is called in messages ("GPU").
  virtual std::string noun() const { return std::string(kind()) + " device"; }
  virtual Residency residency() const = 0;
  virtual BareKind bare() const = 0;
  // kind:0 … kind:count()-1 may be named; `kind:*` names the first star_count().
  virtual int count() const = 0;
  virtual int star_count() const { return count(); }
  // Whether its devices belong to the node, shared by every process on it (GPUs): in a run over
  // ranks, `kind` and `kind:*` then name this process's share of them (DeviceShare).
  virtual bool node_shared() const { return false; }
  // Why there are none of these devices here, or empty. A list that names one is then a
  // DeviceUnavailable error, which the caller may answer by falling back to the CPU.
  virtual std::string why_none() const { return {}; }
  // The memory of device `index` in bytes, when it has its own (Residency::Device); else 0.
  virtual std::size_t memory_bytes(int index) const {
    (void)index;
    return 0;
  }
  // What may be named, for an error message ("cpu, cpu:0 to cpu:1").
  virtual std::string available() const = 0;
  // One line per device (or one saying why there are none), for `pipeline_cli devices`.
  virtual std::vector<std::string> listing() const = 0;

  // A stage's kernel for these devices (Residency::Device only); null, with the reason in `why`, when
  // the backend cannot run the stage as planned.
  virtual std::unique_ptr<StageKernel> kernel(const ElementInfo& info, const Stage& stage, std::string& why) const {
    (void)info, (void)stage;
    why = "it has no kernel for " + std::string(kind());
    return nullptr;
  }
  // Host memory its devices copy to and from by DMA (the rings' slots), or null.
  virtual const HostAllocator* host_allocator() const { return nullptr; }
  // Its part of one run whose stages include some on its devices.
  virtual std::unique_ptr<detail::DeviceRun> start(const detail::RunStart& start) const = 0;
  // What result.json's provenance says of these devices (`used`: a stage ran on them).
  virtual json provenance(bool used) const {
    (void)used;
    return json::object();
  }
};

}  // namespace pacflow
