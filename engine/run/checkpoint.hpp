#pragma once
// A run's checkpoint: the folder that lets a killed run resume where it stopped.
//
//   DIR/checkpoint.json   the plan it belongs to, the series the sinks have made durable (always the
//                         first `series_done` of the stream: sinks receive batches in index order)
//                         and each sink's state at that point; replaced atomically after each batch
//   DIR/sink-K-NAME/      sink K's partial output (Sink::resume, Sink::checkpoint)
//   DIR/.lock             held (FolderLock: flock, naming the holder) while a run uses the folder
//
// A kill between a sink's write and the next record loses nothing: the record still describes the
// state before that batch, and resuming restores exactly that state (sinks discard what came after).
// Every result is a pure function of its series (counter-based randomness keyed by series and seed),
// so a resumed run gives the bits of an uninterrupted one.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/io/folder_lock.hpp"

namespace pacflow {

using json = nlohmann::json;

// "at /pipeline/3/params/n: 200 in the checkpoint, 100 now": the first place two plans differ; ""
// when they are the same.
std::string first_plan_difference(const json& recorded, const json& now);

// `dir`, created if needed (a checkpoint's lock lives in it). Throws an output error naming it.
const std::filesystem::path& created_checkpoint_root(const std::filesystem::path& dir);

// A folder a checkpoint made inside its own (a sink's, a dataset's recording's) holds a marker file;
// only such folders are ever used or removed, never a link or the user's folder of the same name.
bool made_by_checkpoint(const std::filesystem::path& dir);
// Makes `dir` such a folder. Throws InputError when something else is there (naming it and
// `checkpoint_dir`), and an output error when it cannot be made.
void make_checkpoint_folder(const std::filesystem::path& dir, const std::filesystem::path& checkpoint_dir);

class Checkpoint {
 public:
  // Opens (creating it if needed) the checkpoint in `dir` for a run of `plan` (what must not change
  // between the interrupted and the resumed run) over `series` series with these sinks. Throws
  // InputError when another run holds the folder, or when it holds a checkpoint of another plan (the
  // message names the first difference).
  Checkpoint(std::filesystem::path dir, json plan, std::int64_t series, const std::vector<std::string>& sinks);

  const std::filesystem::path& dir() const { return dir_; }
  // Series [0, series_done()) are in the sinks' partial outputs; 0 for a fresh start.
  std::int64_t series_done() const { return series_done_; }
  // Sink k's state when those series were recorded; null for a fresh start.
  const json& sink_state(std::size_t k) const { return sink_states_.at(k); }
  const std::filesystem::path& sink_dir(std::size_t k) const { return sink_dirs_.at(k); }

  // Records that the sinks hold series [0, series_done), with their states (one per sink).
  void record(std::int64_t series_done, std::vector<json> sink_states);
  // The run's outputs are committed: removes what the checkpoint wrote (the folder itself too when
  // nothing else is left in it).
  void discard() noexcept;

 private:
  std::filesystem::path manifest_path() const { return dir_ / "checkpoint.json"; }
  void read_manifest(std::size_t sinks);

  std::filesystem::path dir_;
  FolderLock lock_;  // DIR/.lock, held while the run uses the folder
  json plan_;
  std::int64_t series_ = 0;
  std::int64_t series_done_ = 0;
  std::vector<json> sink_states_;
  std::vector<std::filesystem::path> sink_dirs_;
};

}  // namespace pacflow
