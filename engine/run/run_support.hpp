#pragma once
// Internal to the executor and its node builders: the error wrappers that name the element, batch
// and device, and the slot for a failure seen outside the graph's workers.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <fmt/format.h>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "engine/api/batch.hpp"
#include "engine/api/errors.hpp"

namespace pacflow::detail {

using BatchPtr = std::shared_ptr<Batch>;
using Clock = std::chrono::steady_clock;

// The first failure reported from outside the graph's workers (a GPU fault seen by the completion
// watcher), to be rethrown once the cancelled graph has drained.
class FirstFailure {
 public:
  void set(std::exception_ptr error) {
    const std::lock_guard lock(mutex_);
    if (!error_) error_ = std::move(error);
  }
  void rethrow_if_any() {
    const std::lock_guard lock(mutex_);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
};

// Runs `body`; an exception leaves it nested in a StageError naming the element and batch (a
// cancellation, or an error that already names its element, passes through as it is).
template <typename Body>
void guarded(const char* kind, const std::string& element, std::int64_t batch, Body&& body) {
  try {
    body();
  } catch (const StageError&) {
    throw;
  } catch (const RunCancelled&) {
    throw;
  } catch (const std::exception& e) {
    std::throw_with_nested(StageError(kind, element, batch, e));
  } catch (...) {
    std::throw_with_nested(StageError(kind, element, batch, std::runtime_error("unknown exception")));
  }
}

// Runs `body`; an exception leaves it nested in a DeviceError naming the device (a cancellation
// passes through).
template <typename Body>
void naming_device(const std::string& device, Body&& body) {
  try {
    body();
  } catch (const RunCancelled&) {
    throw;
  } catch (const std::exception& e) {
    std::throw_with_nested(DeviceError(device, e));
  }
}

// A failure reported from outside the stage's body (a GPU's completion watcher), dressed as the body
// would have thrown it: the same nesting, the same type underneath, one route to the caller.
inline std::exception_ptr stage_failure(const std::string& element, std::int64_t batch, const std::string& device,
                                        std::exception_ptr cause) {
  try {
    guarded("stage", element, batch, [&] { naming_device(device, [&] { std::rethrow_exception(cause); }); });
  } catch (...) {
    return std::current_exception();
  }
  return cause;
}

}  // namespace pacflow::detail
