#pragma once
// Runs a pipeline while Python waits: the run goes on a worker thread and the calling (Python)
// thread waits with the GIL released, waking every 100 ms to check for signals (Ctrl-C raises
// KeyboardInterrupt there: the run is asked to stop, its batches in flight finish their current
// stage, the sinks discard their partial outputs, and the KeyboardInterrupt propagates) and to hand
// the latest progress to a Python callable.
#include <functional>
#include <pybind11/pybind11.h>

#include "engine/api/pipeline.hpp"

namespace pacflow::python {

// `progress` is None or called as progress(batches_done, batches_total, elapsed_s) with the GIL held.
// `run` is called on the worker thread with `options`, their stop token and progress hook set.
// Returns the run's report; throws what the run threw, or the KeyboardInterrupt.
json run_while_python_waits(const std::function<json(const RunOptions&)>& run, RunOptions options,
                            const pybind11::object& progress);

}  // namespace pacflow::python
