#pragma once
// What Pipeline::run() returns: the plan it ran and what the run measured, as types. It becomes JSON
// only at the edge: to_json() is what the sinks write into result.json, `pipeline_cli run --json`
// prints and Python's Result.report holds.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>

#include "engine/api/plan_report.hpp"

namespace pacflow {

// A run resumed from its checkpoint (RunOptions::checkpoint).
struct RunResumed {
  std::filesystem::path dir;
  std::int64_t at_series = 0;  // the series the checkpoint already held (0: it started afresh)
};

// The run itself: its batches (of the first segment), its threads and time, and what the run's
// parts measured of themselves.
struct RunStats {
  std::int64_t series = 0;
  std::int64_t batch_size = 0;
  std::int64_t batches = 0;
  std::size_t max_in_flight = 0;
  double tensor_bytes_per_series = 0;
  int threads = 1;
  double wall_s = 0;
  json rings = json::array();    // each ring's occupancy and waits (engine/run/ring.hpp)
  json stages = json::object();  // each element's time (engine/run/observers.hpp)
  std::optional<RunResumed> checkpoint;
  std::optional<int> ranks;        // the processes of a run split over ranks (or shards)
  json rank_devices;               // on the collector: where every rank ran each stage (null: no ranks)
  json rank_transfers;             // the rank link's own account (null: none)
  json devices = json::object();   // each device backend's own account (kernel times, memory high water)
  json to_json() const;
};

struct RunReport {
  Plan plan;  // as run: its segments carry the batches this run made
  json files = json::array();  // every file the run writes (engine/io/run_files.hpp)
  RunStats run;
  json provenance;  // the command, build and machine (RunOptions::provenance); null: not asked for
  json to_json() const;
};

}  // namespace pacflow
