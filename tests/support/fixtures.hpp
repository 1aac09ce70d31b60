#pragma once
// Test helpers: reference fixtures from tests/data and a harness that plans and runs stages
// directly on one batch, exactly as the executor does.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/pipeline.hpp"

namespace pacflow::testing {

std::filesystem::path data_dir();
json manifest(const std::string& folder);
// Any supported .npy as doubles, with its shape.
std::vector<double> load_doubles(const std::filesystem::path& path, Shape* shape = nullptr);
std::vector<float> load_floats(const std::filesystem::path& path, Shape* shape = nullptr);

// Largest |x| over [begin, end).
double max_abs(const double* begin, const double* end);

class StageHarness {
 public:
  explicit StageHarness(StreamInfo stream);
  // Instantiates a built-in stage with validated params and plans it.
  StageHarness& add(const std::string& name, json params = json::object());
  // Runs every stage on series [first, first + count) of `signal` ([n][T] floats).
  Batch run(const std::vector<float>& signal, std::int64_t first, std::int64_t count);
  PlanContext& context() { return ctx_; }
  Stage& stage(std::size_t i) { return *stages_.at(i); }

 private:
  PlanContext ctx_;
  std::vector<std::unique_ptr<Stage>> stages_;
};

// StreamInfo for a fixture folder's x.npy.
StreamInfo fixture_stream(const std::string& folder);

}  // namespace pacflow::testing
