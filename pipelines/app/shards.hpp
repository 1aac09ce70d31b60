#pragma once
// Job arrays without MPI (issue 20): `run --shard i/N --out DIR` computes share i of N of a run (its
// batches i, i + N, …) and writes them, encoded (engine/run/batch_wire.hpp), into DIR with what
// identifies the run; `merge OUT DIR…` takes every shard's batches in index order through the
// pipeline's summaries and sinks, writing into OUT the files one run writes. Merging refuses shards of
// another pipeline, input or shard count, a shard missing or given twice, and an unfinished one.
//
// A shard's folder is an output folder like a sink's: checked, locked for the shard's run (a second
// shard into it is refused), and its files (batches.bin, shard.json, a dataset's recordings' folders)
// committed together, so an interrupted re-run leaves the earlier shard whole. shard.json is sealed
// by a checksum and carries batches.bin's and every listed file's size and checksum: a merge checks
// all of them, bounds what it reads by the files' real sizes, and copies only the listed files.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/rank_link.hpp"
#include "engine/io/checksum.hpp"
#include "engine/io/input_file.hpp"
#include "engine/io/output_folders.hpp"
#include "engine/io/output_set.hpp"
#include "engine/io/unique_fd.hpp"
#include "pipelines/app/job_spec.hpp"

namespace pacflow::app {

// "i/N" as given to --shard; throws InputError for anything else (0 <= i < N).
struct ShardSpec {
  int index = 0;
  int count = 1;
  static ShardSpec parse(const std::string& text);
};

// How the shard's run was made: enough for `merge` to make the same pipeline again (its file's path
// absolute, its overrides, placement and batch size; job_record keeps them).
using ShardRecipe = JobSpec;

// A file a shard wrote besides its batches (a dataset's recording's), as its record lists it.
struct ShardFile {
  std::string path;  // relative to the shard's folder
  std::uint64_t bytes = 0;
  std::string checksum;
};

// One shard's run: sends its batches to a temporary file in `dir`; add_to() hands it, and the
// record shard.json, to the run's commit once the run succeeded (a shard cut short changes nothing).
class ShardWriter final : public RankLink {
 public:
  // Creates and locks `dir` (an output folder: never a device, a FIFO or a file).
  ShardWriter(ShardSpec spec, std::filesystem::path dir, ShardRecipe recipe);
  ~ShardWriter() override;
  int rank() const override { return spec_.index; }
  int size() const override { return spec_.count; }
  bool collects() const override { return false; }
  std::int64_t begin(const json& plan, std::int64_t resume_at) override;
  void send(const Batch& batch) override;
  Batch receive(std::int64_t, int, const std::stop_token&) override;
  // The run succeeded: batches.bin and shard.json go into `outputs`, the record listing (with size
  // and checksum) every other file of `outputs` inside the shard's folder.
  void add_to(OutputSet& outputs);
  // add_to a set of its own, committed.
  void commit();

 private:
  ShardSpec spec_;
  std::filesystem::path dir_;
  ShardRecipe recipe_;
  OutputFolders folder_;  // the shard's folder, locked
  json plan_;
  std::filesystem::path temp_;
  UniqueFd batches_;
  Checksum checksum_;
  std::uint64_t bytes_ = 0;
  std::int64_t sent_ = 0;
};

// Every shard of a run, read back by `merge` in index order.
class ShardReader final : public RankLink {
 public:
  // Reads and checks each folder's shard.json and batches.bin; throws InputError naming the file
  // for a folder that holds no finished shard, a damaged or edited record, batches that are not the
  // record's, shards of different runs or shard counts, and a shard missing or given twice.
  explicit ShardReader(const std::vector<std::filesystem::path>& dirs, const std::stop_token& stop = {});
  ~ShardReader() override;
  const ShardRecipe& recipe() const { return recipe_; }
  // The folder of shard `index` (0 <= index < size()).
  const std::filesystem::path& dir_of(int index) const { return shards_.at(static_cast<std::size_t>(index)).dir; }
  // The files shard `index` lists besides its batches (its recordings'), as its record gives them.
  std::vector<ShardFile> files_of(int index) const;
  int rank() const override { return 0; }
  int size() const override { return static_cast<int>(shards_.size()); }
  bool collects() const override { return true; }
  bool computes() const override { return false; }
  std::int64_t begin(const json& plan, std::int64_t resume_at) override;  // refuses shards of another plan
  void send(const Batch&) override;
  Batch receive(std::int64_t index, int from, const std::stop_token& stop) override;

 private:
  struct Shard {
    std::filesystem::path dir;
    json record;
    std::vector<ShardFile> files;
    std::unique_ptr<InputFile> batches;
    std::uint64_t offset = 0;  // where the next batch starts
  };
  std::vector<Shard> shards_;  // by index
  ShardRecipe recipe_;
};

// Checks every file shard `index` of `shards` lists (a regular file in its folder, not reached
// through a symbolic link, of the listed size and checksum) and adds a copy of each at the same
// place under `to` to `outputs`; copies nothing else. Throws InputError naming a file that differs.
void add_checked_copies(const ShardReader& shards, int index, const std::filesystem::path& to, OutputSet& outputs,
                        const std::stop_token& stop);

}  // namespace pacflow::app
