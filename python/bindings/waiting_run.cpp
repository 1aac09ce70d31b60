#include "python/bindings/waiting_run.hpp"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

namespace py = pybind11;

namespace pacflow::python {

namespace {

// What the worker thread shares with the waiting thread.
struct Shared {
  std::mutex mutex;
  std::condition_variable finished_cv;
  bool finished = false;
  std::optional<Progress> latest;  // not yet handed to Python
};

// Hands `p` to Python's callable as (done, total, elapsed_s): a run's batches, or for a dataset
// (several recordings, each with its own batches) the whole dataset's share done in thousandths.
void report_progress(const py::object& progress, const Progress& p) {
  if (p.recordings > 1) {
    constexpr std::int64_t kWhole = 1000;
    progress(static_cast<std::int64_t>(p.fraction() * kWhole + 0.5), kWhole, p.elapsed_s);
  } else {
    progress(p.batches_done, p.batches_total, p.elapsed_s);
  }
}

}  // namespace

json run_while_python_waits(const std::function<json(const RunOptions&)>& run, RunOptions options,
                            const py::object& progress) {
  Shared shared;
  options.on_progress = [&shared](const Progress& p) {
    const std::lock_guard lock(shared.mutex);
    shared.latest = p;
  };
  json report;
  std::exception_ptr failure;
  std::optional<py::error_already_set> interrupt;  // the KeyboardInterrupt, held until the run stopped
  {
    const py::gil_scoped_release released;
    // Stopped through its own token: by a signal or a failing callback below, and by its destructor
    // should this thread unwind, so the run never outlives the call.
    std::jthread worker([&](std::stop_token stop) {
      try {
        options.stop = std::move(stop);
        report = run(options);
      } catch (...) {
        failure = std::current_exception();
      }
      const std::lock_guard lock(shared.mutex);
      shared.finished = true;
      shared.finished_cv.notify_all();
    });
    std::unique_lock lock(shared.mutex);
    while (!shared.finished) {
      shared.finished_cv.wait_for(lock, std::chrono::milliseconds(100));
      if (shared.finished || interrupt) continue;
      const std::optional<Progress> p = std::exchange(shared.latest, std::nullopt);
      lock.unlock();
      {
        const py::gil_scoped_acquire acquired;
        if (PyErr_CheckSignals() != 0) {
          interrupt.emplace();  // fetches the pending KeyboardInterrupt (or whatever a handler raised)
          worker.request_stop();
        } else if (p && !progress.is_none()) {
          try {
            report_progress(progress, *p);
          } catch (py::error_already_set& e) {  // a failing progress callback stops the run and is raised
            interrupt.emplace(std::move(e));
            worker.request_stop();
          }
        }
      }
      lock.lock();
    }
  }
  if (interrupt) throw *interrupt;
  if (failure) std::rethrow_exception(failure);
  // The last progress the run reported (a run shorter than one wait reports only this one): handed
  // over too, so the callable always hears of the end, and what it raises is raised.
  if (shared.latest && !progress.is_none())
    report_progress(progress, *shared.latest);
  return report;
}

}  // namespace pacflow::python
