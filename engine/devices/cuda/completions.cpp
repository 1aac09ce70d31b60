#include "engine/devices/cuda/completions.hpp"

#include <chrono>
#include <fmt/format.h>
#include <vector>

namespace pacflow::cuda {

Completions::Completions() : thread_([this] { loop(); }) {}

Completions::~Completions() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void Completions::watch(Event event, Action then) {
  {
    const std::lock_guard lock(mutex_);
    pending_.push_back(Entry{std::move(event), std::move(then)});
  }
  wake_.notify_one();
}

void Completions::loop() {
  std::vector<Entry> done;
  std::vector<cudaError_t> status;
  std::unique_lock lock(mutex_);
  for (;;) {
    // Sleep until there is something to watch (or the run ends with nothing left).
    wake_.wait(lock, [&] { return !pending_.empty() || stopping_; });
    if (pending_.empty()) return;
    // Poll every pending event; GPU work on different streams completes out of order.
    for (auto it = pending_.begin(); it != pending_.end();) {
      const cudaError_t s = it->event.query();
      if (s == cudaErrorNotReady) {
        ++it;
        continue;
      }
      status.push_back(s);
      done.push_back(std::move(*it));
      it = pending_.erase(it);
    }
    if (done.empty()) {
      // Nothing finished: look again shortly (a batch's GPU work takes at least tens of microseconds).
      wake_.wait_for(lock, std::chrono::microseconds(50));
      continue;
    }
    lock.unlock();
    for (std::size_t i = 0; i < done.size(); ++i) {
      std::exception_ptr error;
      if (status[i] != cudaSuccess) {
        cudaGetLastError();
        error = std::make_exception_ptr(Error(fmt::format("on {}: the GPU work failed: {} ({})",
                                                          done[i].event.gpu().name(), cudaGetErrorString(status[i]),
                                                          cudaGetErrorName(status[i]))));
      }
      done[i].then(done[i].event, error);
    }
    done.clear();
    status.clear();
    lock.lock();
  }
}

}  // namespace pacflow::cuda
