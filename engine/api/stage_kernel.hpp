#pragma once
// A stage's code for an accelerator backend (today: cuda), kept out of the stage itself. The stage
// plans and runs on the CPU; its kernel for a backend reads what the stage planned and queues the
// same work on one of the backend's devices. The cuda backend's plugin brings the kernels of the
// stages in this repository (engine/devices/gpu_backend.hpp); a stage defined elsewhere offers its own
// through ElementInfo::kernels (engine/api/registry.hpp).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "engine/api/batch.hpp"

namespace pacflow {

class Stage;

// What a backend hands a kernel for one batch; each backend's kernels know its concrete type (for
// cuda: cuda::StageContext, the device, the batch's stream and device memory).
class DeviceContext {
 public:
  virtual ~DeviceContext() = default;

 protected:
  DeviceContext() = default;
  DeviceContext(const DeviceContext&) = default;
  DeviceContext& operator=(const DeviceContext&) = default;
};

class StageKernel {
 public:
  virtual ~StageKernel() = default;
  // Empty when the kernel runs the stage as planned; otherwise why not ("bins=300 is above the GPU
  // kernel's 256"): the stage then falls back to the CPU or the run stops.
  virtual std::string why_not() const { return ""; }
  // Queues one batch's work on the context's device. The backend has put every tensor the stage
  // reads on that device; outputs are emplaced through the context. Must not wait for the device:
  // the backend learns of completion itself. Called concurrently for different batches.
  virtual void process(Batch& batch, DeviceContext& ctx) = 0;
  // Device memory the kernel needs beside the tensors for a batch of `series` (FFT work areas,
  // scratch), for sizing batches to a device's memory budget: an upper bound.
  virtual double workspace_bytes(std::int64_t /*series*/) const { return 0; }
};

// Makes a stage's kernel after the stage was planned (cheap: device memory is taken when a batch
// first runs). Throws std::bad_cast when given a stage of another type.
using KernelFactory = std::function<std::unique_ptr<StageKernel>(const Stage&)>;

}  // namespace pacflow
