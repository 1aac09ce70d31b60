#pragma once
// One thread per run that watches GPU events and acts when each completes, so no oneTBB worker ever
// blocks on a GPU: a stage queues its work, records an event and hands the event here with what to
// do next (send the batch on, add up kernel time). An event that completes with an error (a kernel
// fault) calls its action with that error instead.
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "engine/devices/cuda/handles.hpp"

namespace pacflow::cuda {

class Completions {
 public:
  using Action = std::function<void(const Event& done, std::exception_ptr error)>;
  Completions();
  ~Completions();  // waits until every watched event has completed and its action ran
  Completions(const Completions&) = delete;
  Completions& operator=(const Completions&) = delete;

  // Calls `then(event, nullptr)` once `event` has completed, or `then(event, error)` if the work
  // before it failed.
  // `then` runs on the watcher thread and must not throw or call back into this object's watch().
  void watch(Event event, Action then);

 private:
  struct Entry {
    Event event;
    Action then;
  };
  void loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Entry> pending_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts after the members it uses exist
};

}  // namespace pacflow::cuda
