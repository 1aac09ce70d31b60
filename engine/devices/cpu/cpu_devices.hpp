#pragma once
// Internal to the cpu backend: the CPU devices of a run and the replica leases of a stage.
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <oneapi/tbb/task_arena.h>
#include <stdexcept>
#include <vector>

#include "engine/plan/built_pipeline.hpp"

namespace pacflow::detail {

// The cpu:k devices of a run, each a task_arena with an even share of the machine's threads.
class CpuDevices {
 public:
  // The devices of `cpu` (the backend) that `stages` use.
  CpuDevices(const std::vector<BuiltStage>& stages, const DeviceBackend& cpu) {
    std::vector<int> used;
    for (const auto& s : stages)
      for (const auto& d : s.devices)
        if (d.backend == &cpu && d.index >= 0 && std::find(used.begin(), used.end(), d.index) == used.end())
          used.push_back(d.index);
    if (used.empty()) return;
    const int share = std::max(1, cpu_device_count() / static_cast<int>(used.size()));
    // One slot is reserved for the thread that enters with execute(): the flow-graph worker
    // carrying the batch works inside the device instead of waiting for it.
    for (int k : used) arenas_.emplace(k, std::make_unique<oneapi::tbb::task_arena>(share, 1));
  }
  oneapi::tbb::task_arena& arena(int index) { return *arenas_.at(index); }
  int threads_each() const { return arenas_.empty() ? 0 : arenas_.begin()->second->max_concurrency(); }

 private:
  std::map<int, std::unique_ptr<oneapi::tbb::task_arena>> arenas_;
};

// Free replicas of one stage. The node in front admits at most one batch per replica, so a lease
// always finds one. Each replica is one atomic flag claimed by compare-exchange: leasing never
// blocks a worker, and unlike a lock-free queue's node free list (which reads recycled nodes
// non-atomically, a race ThreadSanitizer reports) every access is an atomic one.
class ReplicaLeases {
 public:
  explicit ReplicaLeases(std::size_t replicas) : taken_(replicas) {}
  std::size_t lease() {
    for (std::size_t r = 0; r < taken_.size(); ++r) {
      bool expected = false;
      if (taken_[r].compare_exchange_strong(expected, true, std::memory_order_acquire)) return r;
    }
    throw std::logic_error("no free replica although the node admits one batch per replica");
  }
  void give_back(std::size_t r) { taken_[r].store(false, std::memory_order_release); }

  // A leased replica, given back when it goes out of scope, whatever happens in between.
  class Held {
   public:
    explicit Held(ReplicaLeases& leases) : leases_(leases), replica_(leases.lease()) {}
    ~Held() { leases_.give_back(replica_); }
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;
    std::size_t replica() const { return replica_; }

   private:
    ReplicaLeases& leases_;
    std::size_t replica_;
  };

 private:
  std::vector<std::atomic<bool>> taken_;
};

}  // namespace pacflow::detail
