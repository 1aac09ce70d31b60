#pragma once
// Sink `arrays`: every result in memory, for a caller that reads them there (the Python module's
// Result) rather than from files: each result as one float32 array, its leading dims (the stream's
// or its own, as the npy sink writes them) then its per-series axes, and every coordinate. Writes
// no file. Not a built-in element: a caller adds it to its own registry with the ResultArrays it
// fills (MemorySink::info).
#include <memory>
#include <string>
#include <vector>

#include "engine/api/param_binding.hpp"
#include "engine/api/registry.hpp"
#include "stages/io/common/result_arrays.hpp"

namespace pacflow::stages {

class MemorySink final : public Sink {
 public:
  void plan(const PlanContext& ctx) override;
  std::vector<std::filesystem::path> output_files() const override { return {}; }
  void consume(const Batch& batch) override;
  void consume_summary(const Batch& summary) override;
  void finish(const json& report, OutputSet& outputs) override;
  void abort() noexcept override;

  // The element `arrays` (or `name`), whose sinks fill `results` when their run succeeds.
  static ElementInfo info(std::shared_ptr<ResultArrays> results, const std::string& name = "arrays");
  static void declare(ParamBinder<MemorySink>&) {}

 private:
  struct Pending {
    TensorDecl decl;
    ResultArray array;
  };
  static void append(Pending& out, const Tensor& t);

  std::shared_ptr<ResultArrays> results_;
  std::vector<Pending> pending_;
  std::vector<Coordinate> coordinates_;
  SharedFacts facts_;
};

}  // namespace pacflow::stages
