#pragma once
// The reference workloads (pipelines/bench/wN.pipe) as the in-process benchmarks run them: loaded
// from the source tree, with their outputs sent to a scratch directory removed afterwards.
#include <filesystem>
#include <string>

#include "engine/api/pipeline.hpp"
#include "pipelines/pipe_format.hpp"

namespace pacflow::bench {

// A scratch directory for a benchmark's outputs, removed (with what it holds) on destruction.
class ScratchOutput {
 public:
  explicit ScratchOutput(const std::string& name)
      : path_((std::filesystem::temp_directory_path() / ("pacflow_bench_" + name)).string()) {}
  ~ScratchOutput() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchOutput(const ScratchOutput&) = delete;
  ScratchOutput& operator=(const ScratchOutput&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Loads workload `name` (w1, w2, w3) into `pipeline` and sends its outputs to `out`.
inline Pipeline& load_workload(Pipeline& pipeline, const std::string& name, const ScratchOutput& out) {
  load_pipe_file(std::string(PACFLOW_SOURCE_DIR) + "/pipelines/bench/" + name + ".pipe", pipeline);
  return pipeline.redirect_outputs(out.path());
}

}  // namespace pacflow::bench
