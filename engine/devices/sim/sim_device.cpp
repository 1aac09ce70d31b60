#include "engine/devices/sim/sim_device.hpp"

#include <algorithm>
#include <cstdint>

namespace pacflow {

namespace {
SimDevices::Clock::duration seconds(double s) {
  return std::chrono::duration_cast<SimDevices::Clock::duration>(std::chrono::duration<double>(s));
}
}  // namespace

SimDevices::Booking SimDevices::plan_on(int device, const Engines& engines, const SimWork& work,
                                       Clock::time_point now) const {
  Booking b;
  const double copy_in_s = work.from_device == device ? 0.0
                           : work.from_device >= 0    ? work.bytes_in / model_.peer_bytes_per_s
                                                      : work.bytes_in / model_.host_to_device_bytes_per_s;
  b.copy_in_start = std::max(now, engines.copy_in);
  b.copy_in_end = b.copy_in_start + seconds(copy_in_s);
  b.compute_start = std::max(b.copy_in_end, engines.compute);
  const double compute_s =
      std::max(work.flops / (work.flops_per_s > 0 ? work.flops_per_s : model_.flops_per_s),
               work.device_bytes / model_.memory_bytes_per_s) +
      model_.launch_s;
  b.compute_end = b.compute_start + seconds(compute_s);
  b.copy_out_start = std::max(b.compute_end, engines.copy_out);
  b.done = b.copy_out_start + seconds(work.keep_on_device ? 0.0 : work.bytes_out / model_.device_to_host_bytes_per_s);
  return b;
}

SimDevices::Booking SimDevices::book(const std::vector<int>& devices, const SimWork& work, Clock::time_point now) {
  const std::lock_guard lock(mutex_);
  Booking best;
  bool have = false;
  for (int d : devices) {
    Booking b = plan_on(d, engines_[d], work, now);
    b.device = d;
    if (!have || b.done < best.done) {
      best = b;
      have = true;
    }
  }
  // Each engine is busy until its phase of this batch ends.
  Engines& e = engines_[best.device];
  e.copy_in = best.copy_in_end;
  e.compute = best.compute_end;
  e.copy_out = best.done;
  return best;
}

DueTimeQueue::DueTimeQueue() : thread_([this] { loop(); }) {}

DueTimeQueue::~DueTimeQueue() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void DueTimeQueue::push(Clock::time_point due, std::function<void()> action) {
  {
    const std::lock_guard lock(mutex_);
    items_.push({due, next_order_++, std::move(action)});
  }
  wake_.notify_all();
}

void DueTimeQueue::loop() {
  std::unique_lock lock(mutex_);
  while (true) {
    if (items_.empty()) {
      if (stopping_) return;
      wake_.wait(lock);
      continue;
    }
    const Clock::time_point due = items_.top().due;
    if (!stopping_ && Clock::now() < due) {
      wake_.wait_until(lock, due);
      continue;
    }
    std::function<void()> action = items_.top().action;
    items_.pop();
    lock.unlock();
    action();
    lock.lock();
  }
}

}  // namespace pacflow
