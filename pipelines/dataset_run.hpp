#pragma once
// A dataset: a pipeline whose source is a manifest (stages/io/manifest: one recording per row of a
// table, pipelines/manifest_table.hpp) runs once per recording, each run the pipeline with the row's
// reader and parameters as its source. Recordings may differ in length, sample rate, epochs or
// channels: each run plans its own filters and batches.
//
// Outputs. Each recording's results are the files a run of that recording alone writes, one folder
// deeper: a sink's folder DIR becomes DIR/<id>, a file DIR/NAME becomes DIR/<id>/NAME; each is
// committed when its run succeeds. Then every result array of every recording, stacked along a
// first dimension `recordings`, goes into one HDF5 file (the manifest's stacked=, by default
// recordings.h5 in the folder of the first sink's outputs; stages/io/hdf5/stacked_results.hpp),
// written as the recordings finish and moved into place last. Stacking needs the same result shapes
// (epochs, channels, bands) in every recording: otherwise it is refused, naming the recording, after
// every recording's own results are written.
//
// Ranks (RunOptions::ranks, engine/api/rank_link.hpp): rank r runs the recordings r, r + N, … whole,
// alone, and sends each one's result arrays to rank 0 (one batch per recording, in order), which
// stacks them with its own. Every rank writes its recordings' folders (a file system all ranks see).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/api/pipeline.hpp"
#include "engine/io/output_set.hpp"
#include "engine/api/plan_report.hpp"
#include "pipelines/group/group_summary.hpp"
#include "stages/io/memory/memory_sink.hpp"

namespace pacflow {

// One recording's run failed: the message names the recording; the cause is nested (an InputError
// there makes it bad input, caused_by_input).
class RecordingFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether `pipeline` runs a dataset: its source is a manifest.
bool is_dataset(const Pipeline& pipeline);

// Runs the dataset. Throws InputError naming the table's line for a bad row, and a recording's
// failure nested in an error naming the recording (RecordingFailed). Returns the dataset's report:
// every recording (id, the rank that ran it, its series and time), the stacked file and warnings.
// `options` apply to every recording's run; progress reports count the whole dataset (Progress::
// recording). With options.checkpoint (one process only) each recording's run is kept in that folder
// as it finishes, and a dataset run again takes the recordings kept there instead of running them
// (pipelines/dataset_checkpoint.hpp); the folder goes once the dataset's files are committed.
//
// A dataset is one transaction: every recording's files and the stacked file are moved into place
// together once all are complete (RunOptions::commit_into: into the caller's set, which commits
// them; else committed here). A failure or a stop anywhere leaves every earlier file as it was. The
// sinks' folders and the stacked file's are locked for the whole dataset (each recording's folder
// beneath them is covered by that lock). Over ranks each rank commits its own recordings' files
// when it has run them, and rank 0 the stacked file once it has every recording's arrays.
// `on_recording`, when given, receives each recording this process runs, as it finishes: its id, its
// run's report and its result arrays, shared rather than copied (the Python module keeps them, and
// takes their contents once the dataset's run is over, when no one else holds them).
// `before_commit`, when given, is called once every recording ran, before the commit, with the
// report and the set: what it adds is committed with the rest (a merge's copies, a shard's record).
struct DatasetReport {
  struct Recording {
    std::string id;
    int rank = 0;                        // the process that ran it
    std::optional<std::int64_t> series;  // a recording this process ran (or took from its checkpoint)
    double wall_s = 0;
    bool from_checkpoint = false;
  };
  struct Resumed {
    std::filesystem::path dir;
    std::int64_t recordings = 0;  // taken from the checkpoint rather than run
  };
  std::string dataset;  // the table, or the BIDS folder
  std::vector<Recording> recordings;
  std::vector<std::string> warnings;
  std::optional<group::GroupReport> group;  // the group-level tests, or why none was made; unset: group=none
  std::optional<std::filesystem::path> stacked;
  std::optional<Resumed> checkpoint;
  json to_json() const;
};

// A recording's report is JSON here: the edge where the Python module keeps it and a checkpoint
// stores it (a recording taken from a checkpoint has only that).
using RecordingResults = std::function<void(const std::string& id, const json& report,
                                            const std::shared_ptr<stages::ResultArrays>& results)>;
using BeforeCommit = std::function<void(const DatasetReport& report, OutputSet& outputs)>;
DatasetReport run_dataset(const Pipeline& pipeline, const RunOptions& options, const RecordingResults& on_recording = {},
                          const BeforeCommit& before_commit = {});

// A dataset checked without running it: every recording's plan.
struct DatasetPlan {
  struct Recording {
    std::string id;
    int line = 0;        // in the table; 0 for a file of a BIDS tree
    std::string origin;  // where it was named ("subjects.tsv:4", a BIDS file)
    Plan plan;
  };
  std::string dataset;                // the table, or the BIDS folder
  std::vector<std::string> warnings;  // about the dataset as read (a BIDS subject not listed, …)
  std::vector<Recording> recordings;
  // The run time estimate of them all, run one after another as run_dataset does.
  double run_time_seconds() const;
  json to_json() const;
};

// Checks the dataset without running it: the table, every file, and every recording's pipeline as
// Pipeline::validate does (its source opened).
DatasetPlan validate_dataset(const Pipeline& pipeline, const RunOptions& options);

}  // namespace pacflow
