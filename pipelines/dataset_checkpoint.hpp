#pragma once
// A dataset's checkpoint (`pipeline_cli run --checkpoint DIR` on a manifest, issue 38): the
// recordings already run, so that a dataset stopped part-way (killed, a recording failing, Ctrl-C)
// runs again only the recordings not yet done. A dataset is still one transaction: its files are
// committed together at the end, from the recordings run now and those kept here.
//
//   DIR/dataset.json            the dataset's plan (its table's rows, the pipeline, the engine's
//                               version): a checkpoint of another dataset is refused, naming the
//                               first difference
//   DIR/recording-ID/           one recording's: a marker (.pacflow-checkpoint), its result arrays
//                               (arrays.bin: the rank codec, pipelines/recording_codec.hpp), copies of its output files (file-K),
//                               and, written last, recording.json: its report, its input's checksum
//                               and each file's target, size and checksum, sealed
//   DIR/.lock                   held while a run uses the folder
//
// A recording is taken from the checkpoint only when its record is whole and sealed, its input file
// has the checksum it had, and every stored file has its recorded size and checksum; otherwise it
// runs again. The folder is removed once the dataset's files are committed.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/io/folder_lock.hpp"
#include "stages/io/common/result_arrays.hpp"

namespace pacflow {

class DatasetCheckpoint {
 public:
  // Opens (creating) the checkpoint in `dir` for the dataset of `plan`. Throws InputError when
  // another run holds it or it belongs to another dataset.
  DatasetCheckpoint(std::filesystem::path dir, nlohmann::json plan);

  // What a recording's run left: its report, its results and its output files (the stored copy,
  // the target), in the order the run added them.
  struct Recording {
    nlohmann::json report;
    stages::ResultArrays results;
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> files;
  };
  // Recording `id`'s, when it was kept whole and its input still has `input_checksum`.
  std::optional<Recording> find(const std::string& id, const std::string& input_checksum) const;
  // Keeps recording `id`'s run: copies of `files` (each (file, target) as OutputSet::files gives
  // them), its results and report, the record last.
  void keep(const std::string& id, const std::string& input_checksum, const nlohmann::json& report,
            const stages::ResultArrays& results,
            const std::vector<std::pair<std::filesystem::path, std::filesystem::path>>& files);
  // The dataset's files are committed: removes what the checkpoint wrote.
  void discard() noexcept;

  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path recording_dir(const std::string& id) const { return dir_ / ("recording-" + id); }

  std::filesystem::path dir_;
  FolderLock lock_;
  nlohmann::json plan_;
};

}  // namespace pacflow
