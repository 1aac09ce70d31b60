#pragma once
// Sink `npy`: every result tensor as DIR/<name>.npy [E][C][...] (or its own leading dims) float32, plus DIR/result.json
// (spec §8). Files stream into temporaries and are renamed into place only when the run succeeds.
#include <memory>
#include <vector>

#include "engine/npy.hpp"
#include "engine/registry.hpp"

namespace pacflow::stages {

class NpySink final : public Sink {
 public:
  explicit NpySink(const Params& params);
  void plan(const PlanContext& ctx) override;
  void consume(const Batch& batch) override;
  void finish(const json& report) override;
  void abort() noexcept override;

  static ElementInfo info();

 private:
  struct Output {
    TensorDecl decl;
    std::unique_ptr<NpyWriter> writer;
  };
  Shape shape_of(const TensorDecl& decl) const;

  std::string dir_;
  Shape leading_;
  std::vector<std::string> leading_names_;
  std::vector<Output> outputs_;
};

}  // namespace pacflow::stages
