#pragma once
// Job arrays without MPI (issue 20): `run --shard i/N --out DIR` computes share i of N of a run (its
// batches i, i + N, …) and writes them, encoded (engine/run/batch_wire.hpp), into DIR with what
// identifies the run; `merge OUT DIR…` takes every shard's batches in index order through the
// pipeline's summaries and sinks, writing into OUT the files one run writes. Merging refuses shards of
// another pipeline, input or shard count, a shard missing or given twice, and an unfinished one.
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/rank_link.hpp"

namespace pacflow::cli {

// "i/N" as given to --shard; throws InputError for anything else (0 <= i < N).
struct ShardSpec {
  int index = 0;
  int count = 1;
  static ShardSpec parse(const std::string& text);
};

// How the shard's run was made: enough for `merge` to make the same pipeline again.
struct ShardRecipe {
  std::filesystem::path pipe_file;  // absolute
  std::vector<std::string> sets;
  std::string devices, fallback, vram;
  std::int64_t batch = 0;
};

// One shard's run: sends its batches to a file in `dir`; commit() moves it into place with
// shard.json once the run succeeded (a shard cut short leaves no shard.json).
class ShardWriter final : public RankLink {
 public:
  ShardWriter(ShardSpec spec, std::filesystem::path dir, ShardRecipe recipe);
  ~ShardWriter() override;
  int rank() const override { return spec_.index; }
  int size() const override { return spec_.count; }
  bool collects() const override { return false; }
  std::int64_t begin(const json& plan, std::int64_t resume_at) override;
  void send(const Batch& batch) override;
  Batch receive(std::int64_t, int, const std::stop_token&) override;
  // The run succeeded: the shard is complete.
  void commit();

 private:
  ShardSpec spec_;
  std::filesystem::path dir_;
  ShardRecipe recipe_;
  json plan_;
  std::filesystem::path temp_;
  std::ofstream batches_;
  std::int64_t sent_ = 0;
};

// Every shard of a run, read back by `merge` in index order.
class ShardReader final : public RankLink {
 public:
  // Reads each folder's shard.json; throws InputError for a folder that holds no finished shard,
  // shards of different runs or shard counts, and a shard missing or given twice.
  explicit ShardReader(const std::vector<std::filesystem::path>& dirs);
  ~ShardReader() override;
  const ShardRecipe& recipe() const { return recipe_; }
  // The folder of shard `index` (0 <= index < size()).
  const std::filesystem::path& dir_of(int index) const { return shards_.at(static_cast<std::size_t>(index)).dir; }
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
    json manifest;
    std::ifstream batches;
  };
  std::vector<Shard> shards_;  // by index
  ShardRecipe recipe_;
};

}  // namespace pacflow::cli
