#pragma once
// Sink `npy`: every result tensor as DIR/<name>.npy [E][C][...] (or its own leading dims) float32, every
// coordinate (engine/api/stage.hpp) as DIR/<name>.npy float64, plus DIR/result.json (spec §8). Files stream into temporaries (in a checkpointed run: partial files in the checkpoint) and
// are moved into place with result.json, and every other sink's files, only when the run succeeds.
#include <memory>
#include <vector>

#include "engine/io/npy.hpp"
#include "engine/api/param_binding.hpp"

namespace pacflow::stages {

class NpySink final : public Sink {
 public:
  void plan(const PlanContext& ctx) override;
  std::vector<std::filesystem::path> output_files() const override;
  std::string describe_output(const std::filesystem::path& file) const override;
  void consume(const Batch& batch) override;
  void consume_summary(const Batch& summary) override;
  void finish(const json& report, OutputSet& outputs) override;
  void abort() noexcept override;
  std::string why_not_checkpointable() const override { return ""; }
  void resume(const std::filesystem::path& dir, const json& state, std::int64_t series_done) override;
  json checkpoint() override;

  static ElementInfo info();
  static void declare(ParamBinder<NpySink>& p);

 private:
  struct Output {
    TensorDecl decl;
    Shape shape;                             // the file's: leading dims, then the per-row shape
    std::vector<std::string> leading_names;  // of the leading dims
    std::unique_ptr<NpyWriter> writer;
  };
  std::filesystem::path file_of(const Output& out) const { return std::filesystem::path(dir_) / (out.decl.name + ".npy"); }

  std::string dir_ = "out/pac";
  std::vector<Output> outputs_;
  std::vector<Coordinate> coordinates_;  // written whole as float64 DIR/<name>.npy
  bool started_ = false;  // the writers exist (made by the first batch, or by resume())
};

}  // namespace pacflow::stages
