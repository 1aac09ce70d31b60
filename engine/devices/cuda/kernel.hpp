#pragma once
// The base of every stage's CUDA kernel: the backend hands it its own StageContext.
#include "engine/devices/cuda/stage_context.hpp"
#include "engine/api/stage_kernel.hpp"

namespace pacflow::cuda {

class Kernel : public StageKernel {
 public:
  void process(Batch& batch, DeviceContext& ctx) final { run(batch, static_cast<StageContext&>(ctx)); }
  // Queues one batch's work on ctx's stream (StageKernel::process).
  virtual void run(Batch& batch, StageContext& ctx) = 0;
};

}  // namespace pacflow::cuda
