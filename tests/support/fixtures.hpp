#pragma once
// Test helpers: reference fixtures from tests/data and a harness that plans and runs stages
// directly on one batch, exactly as the executor does.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/api/pipeline.hpp"

namespace pacflow::testing {

std::filesystem::path data_dir();
// Copies the repository's pipelines/ (its .pipe files, folders kept) into `root`/pipelines: their
// paths, relative to their own folder, then land inside `root` as they land in the repository.
void copy_shipped_pipelines(const std::filesystem::path& root);
json manifest(const std::string& folder);
// Any supported .npy as doubles, with its shape.
std::vector<double> load_doubles(const std::filesystem::path& path, Shape* shape = nullptr);
std::vector<float> load_floats(const std::filesystem::path& path, Shape* shape = nullptr);

// Largest |x| over [begin, end).
double max_abs(const double* begin, const double* end);

// Plans stages and runs them on one batch on a device ("cpu", or "cuda:K" in CUDA builds), the way
// the executor does: on a GPU every tensor a stage reads is put on the device, the stage's CUDA code
// queued, and the batch brought back to the host once all stages ran (and before a stage without
// CUDA code, which runs on the CPU as with fallback=cpu).
class StageHarness {
 public:
  explicit StageHarness(StreamInfo stream, std::string device = "cpu");
  ~StageHarness();
  StageHarness(StageHarness&&) noexcept;
  StageHarness& operator=(StageHarness&&) noexcept;
  // Instantiates a built-in stage with validated params and plans it.
  StageHarness& add(const std::string& name, json params = json::object());
  // Runs every stage on series [first, first + count) of `signal` ([n][T] floats).
  Batch run(const std::vector<float>& signal, std::int64_t first, std::int64_t count);
  PlanContext& context() { return ctx_; }
  Stage& stage(std::size_t i) { return *stages_.at(i); }

 private:
  struct Gpu;
  PlanContext ctx_;
  std::string device_;
  std::vector<std::unique_ptr<Stage>> stages_;
  std::vector<std::vector<std::string>> reads_;  // per stage
  std::unique_ptr<Gpu> gpu_;
};

// The devices device-parametrised tests run on: "cpu" always, "cuda:0" in every build (skipped with
// the reason when no GPU is visible, including builds without CUDA).
std::vector<std::string> test_devices();
// "cpu" -> "cpu", "cuda:0" -> "cuda0": a test-name suffix.
std::string device_test_name(const ::testing::TestParamInfo<std::string>& info);
// For TEST_P suites parametrised by device: skips, saying why, where the device is not available.
class OnDevice : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override;
  const std::string& device() const { return GetParam(); }
};

// StreamInfo for a fixture folder's x.npy.
StreamInfo fixture_stream(const std::string& folder);

}  // namespace pacflow::testing
