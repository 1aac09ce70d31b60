#pragma once
// What the Python layer asks the engine for, as one JSON object (python/src/pacflow/pipeline.py
// writes it): the pipeline (a .pipe file and/or elements), overrides, placement and run options.
//
//   {"pipe": "x.pipe" | null, "elements": [{"kind": "stage", "name": "mi", "params": {...}}, ...],
//    "set": [["surrogates", "n", 1000], ...], "out": "dir" | null, "devices": "cpu:*" | null,
//    "fallback": "cpu" | null, "vram": "40GB" | null, "batch_size": 0, "in_flight": 0,
//    "arrays": true, "checkpoint": null, "trace": null, "max_memory": null, "clean": false}
// It becomes a job's description (pipelines/app/job_spec.hpp), as the CLI's options do.
#include <memory>
#include <string>
#include <vector>

#include "engine/api/pipeline.hpp"
#include "pipelines/app/job_spec.hpp"
#include "stages/io/memory/host_array.hpp"
#include "stages/io/memory/memory_sink.hpp"

namespace pacflow::python {

// The registry a request's pipeline is built from: the built-in elements, plus the `array` source
// reading `input` when there is one and the `arrays` sink filling `results`.
Registry request_registry(std::shared_ptr<const stages::HostArray> input, std::shared_ptr<stages::ResultArrays> results);

// The job `request` describes (its elements aside).
app::JobSpec request_job(const json& request);

// The pipeline `request` describes, over `registry` (which must outlive it). Adds the `arrays` sink
// when the request asks for arrays. Throws InputError as the CLI's loading does.
Pipeline request_pipeline(const json& request, const Registry& registry);

// The run options `request` sets (batch size, in-flight limit, checkpoint, trace file, memory
// limit, clean); the caller adds the stop token, progress, observers and provenance.
RunOptions request_options(const json& request);

}  // namespace pacflow::python
