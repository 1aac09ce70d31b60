#pragma once
// A pipeline's checked plan as types: what Pipeline::validate() returns and a run's report starts
// from (engine/run/executor.cpp). It becomes JSON only at the edge: to_json() gives the plan of
// `pipeline_cli validate --json`, of Python's Pipeline.validate() and of result.json.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/api/estimates.hpp"
#include "engine/api/registry.hpp"

namespace pacflow {

// The stream the source delivers, after any preprocessing stage.
struct PlannedInput {
  json description = json::object();  // the source's own account (path, dtype, checksum, channel labels, …)
  Shape shape;                        // the leading dims, then the samples of a series
  std::vector<std::string> dims;      // their names, "time" last
  double sample_rate_hz = 0;
  json to_json() const;
};

struct PlannedElement {
  ElementKind kind = ElementKind::Stage;
  std::string name;
  std::string device;  // where a stage runs ("cpu:0", …); empty for the source and the sinks
  json params;         // as resolved: defaults filled, derived values added
  std::optional<std::vector<std::string>> reads, writes;  // the tensors (a preprocessing stage: none listed)
  std::optional<std::size_t> branch_group;  // the group of branches it runs beside, if any
  json to_json() const;
};

// A bounded ring of pinned slots in front of a segment (engine/run/ring.hpp).
struct PlannedRing {
  std::string from, into;  // the elements on each side
  std::size_t capacity = 0;
  std::string overflow;
  std::size_t slot_bytes = 0;
  std::vector<std::string> tensors;  // what crosses it
};

// Consecutive stages that pass their batches on directly: the run's unit of batching.
struct PlannedSegment {
  std::vector<std::string> stages;
  std::int64_t batch_series = 0;
  std::int64_t batches = 0;
  double gpu_bytes_per_batch = 0;        // GPU memory one batch holds at its peak; 0: none
  std::size_t max_in_flight = 0;         // without a ring in front of it
  std::optional<PlannedRing> ring;
  json to_json() const;
};

struct Plan {
  std::string version;  // the engine's
  PlannedInput input;
  json facts = json::object();  // what the elements published (PlanFact, coordinates), by name
  std::vector<PlannedElement> elements;  // the source, preprocessing, stages, then the sinks
  std::vector<std::vector<std::string>> branches;  // each group's stages
  json tensors = json::array();                    // every declared tensor
  std::vector<std::string> warnings;
  std::vector<std::string> devices;                            // every device a stage uses, in first use order
  std::map<std::string, std::size_t> gpu_memory_budget_bytes;  // per GPU a stage holds memory on
  std::vector<PlannedSegment> segments;
  MemoryEstimate host_memory;
  std::optional<RunTimeEstimate> run_time;  // validate()'s, at its options' rates
  std::int64_t batch_multiple = 1;          // every batch a whole multiple of this many series …
  std::string batch_multiple_by;            // … as these elements require
  json to_json() const;
};

// What must not change between an interrupted run and its resumption, and between the ranks of one
// run: the engine's version, the input (its checksum too), every element with its resolved
// parameters, and the tensors. Not where the stages run: the results are the same whatever the
// placement, so a run stopped on GPUs may resume on the CPU, and each rank takes its own GPU. As a
// checkpoint and the rank link record it (JSON).
json run_identity(const Plan& plan);

}  // namespace pacflow
