#pragma once
// `sim:k`, a modelled accelerator, so that scaling to 8-16 devices can be measured on a laptop.
//
// A stage placed on sim devices does no arithmetic. Each batch is booked on the replica that will
// finish it first; the device has three engines, like a GPU with separate copy engines: copy-in
// (the bytes the stage reads: from the host, from another device peer to peer, or nothing when
// they are already on this device), compute (the stage's flops at the device's rate, or its memory
// traffic at the memory bandwidth, whichever takes longer, plus a launch overhead) and copy-out
// (the bytes it writes, to the host; nothing when the next stage also runs on sim devices, which
// then fetches them peer to peer or finds them in place). A batch's copies therefore overlap other
// batches' compute. The batch is released when its copy-out ends; its outputs are zero-filled
// stand-ins, and the run says so in its warnings.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <vector>

#include "engine/api/sim_model.hpp"

namespace pacflow {

// One batch's work on a device.
struct SimWork {
  double flops = 0;
  double device_bytes = 0;  // memory traffic of the computation
  double bytes_in = 0;      // copied to the device first (unless already there)
  double bytes_out = 0;     // copied device to host after (unless kept on the device)
  int from_device = -1;     // the sim device holding the inputs; -1: the host
  bool keep_on_device = false;  // the next stage runs on sim devices: no copy back to the host
  double flops_per_s = 0;       // the stage's own rate (SimModel::stage_flops_per_s); 0: the model's
};

class SimDevices {
 public:
  using Clock = std::chrono::steady_clock;
  struct Booking {
    int device = 0;
    Clock::time_point copy_in_start, copy_in_end, compute_start, compute_end, copy_out_start, done;
  };

  explicit SimDevices(SimModel model = {}) : model_(model) {}
  const SimModel& model() const { return model_; }

  // Books `work` on whichever of `devices` finishes it first, no earlier than `now`. Thread-safe.
  Booking book(const std::vector<int>& devices, const SimWork& work, Clock::time_point now);

 private:
  struct Engines {
    Clock::time_point copy_in, compute, copy_out;  // when each is next free
  };
  Booking plan_on(int device, const Engines& engines, const SimWork& work, Clock::time_point now) const;

  SimModel model_;
  std::mutex mutex_;
  std::map<int, Engines> engines_;
};

// Runs actions at their due times on one thread of its own; the destructor runs what is left at
// once and joins (RAII), so a cancelled run never leaves a batch behind.
class DueTimeQueue {
 public:
  using Clock = std::chrono::steady_clock;
  DueTimeQueue();
  ~DueTimeQueue();
  DueTimeQueue(const DueTimeQueue&) = delete;
  DueTimeQueue& operator=(const DueTimeQueue&) = delete;

  void push(Clock::time_point due, std::function<void()> action);

 private:
  struct Item {
    Clock::time_point due;
    std::uint64_t order;  // ties keep submission order
    std::function<void()> action;
    bool operator>(const Item& other) const { return due != other.due ? due > other.due : order > other.order; }
  };
  void loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> items_;
  std::uint64_t next_order_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace pacflow
