#pragma once
// A batch: a contiguous slice of series (rows of the flattened leading dimensions) with its dense
// index and the named tensors the stages have written for it. Every tensor's first dimension is
// the batch's series count, except for tensors declared with rows per group of series
// (RowLayout, engine/api/stage.hpp), which have their rows for the batch's whole groups.
#include <cstdint>
#include <map>
#include <memory>
#include <stop_token>
#include <string>

#include "engine/api/tensor.hpp"

namespace pacflow {

// A batch's hold on memory its tensors borrow from the run (a ring's slot: engine/run/ring.hpp).
// Given back once the batch no longer needs it, or when the batch dies.
class SlotLease {
 public:
  virtual ~SlotLease() = default;
  virtual void give_back() = 0;
};

// An accelerator's hold on a batch whose tensors live in its memory (for CUDA: the device and the
// stream the batch's work is queued on). Given up when the batch leaves the device, or dies.
class DeviceResidency {
 public:
  virtual ~DeviceResidency() = default;
};

struct Batch {
  Batch();
  ~Batch();  // gives back the memory it still borrows
  Batch(Batch&&) noexcept;
  Batch& operator=(Batch&&) noexcept;

  std::int64_t index = 0;         // dense, 0-based: sinks receive batches in this order
  std::int64_t first_series = 0;  // global row of the first series
  std::int64_t series_count = 0;
  // Modelled devices only: the sim device whose memory holds the batch's tensors (-1: the host).
  int resident_device = -1;
  // GPUs only: the device and stream holding the batch (declared before the tensors, so device
  // tensors are released first, in the order of the stream's work).
  std::unique_ptr<DeviceResidency> residency;
  std::map<std::string, Tensor> tensors;
  // The ring slot whose memory the crossing tensors borrow; none before the first ring.
  std::unique_ptr<SlotLease> slot;
  // The run's stop request (RunOptions::stop), set by the node that runs a stage on the batch: a
  // stage whose work on one batch can take long (thousands of surrogates) checks it every ~100 ms
  // and throws RunCancelled. A default token (a batch made outside a run) never stops.
  std::stop_token stop;

  // Adds a zeroed tensor of shape [series_count, per_series...].
  Tensor& emplace(const std::string& name, const Shape& per_series, DType dtype);
  // Adds a zeroed tensor of shape [rows, per_row...] (a tensor with rows per group of series).
  Tensor& emplace_rows(const std::string& name, std::int64_t rows, const Shape& per_row, DType dtype);
  Tensor& at(const std::string& name);
  const Tensor& at(const std::string& name) const;
  bool has(const std::string& name) const { return tensors.count(name) != 0; }
};

}  // namespace pacflow
