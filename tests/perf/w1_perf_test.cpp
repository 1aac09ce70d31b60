// CI guard for issue 4: W1 end to end (pipelines/bench/w1.pipe, in process) must not become more
// than 3x slower than recorded in bench/perf_baseline.json. It is measured as a ratio against a
// calibration loop (a vector add on every thread) timed alternately in the same process, medians of
// five, so a slower or noisier machine moves both sides and the check does not flake.
// To record a new baseline: PACFLOW_RECORD_PERF_BASELINE=1 build/tests/perf_tests
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <vector>

#include "bench/vector_add.hpp"
#include "engine/io/atomic_file.hpp"
#include "pipelines/pipe_format.hpp"
#include "stages/builtin.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow {
namespace {

template <class F>
double seconds_of(F&& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// About 4·10^8 float adds spread over every thread, on cache-resident arrays.
void calibration_loop() {
  const int threads = oneapi::tbb::this_task_arena::max_concurrency();
  oneapi::tbb::parallel_for(0, threads, [&](int) {
    constexpr std::size_t n = 32 << 10;
    std::vector<float> x(n, 1.0f), y(n, 0.0f);
    const int repeats = 12000 / threads;
    for (int r = 0; r < repeats; ++r) bench::vector_add(y.data(), x.data(), n);
    if (y[0] != static_cast<float>(repeats)) std::abort();  // keeps the loop, checks the arithmetic
  });
}

TEST(Performance, W1StaysWithinThreeTimesTheRecordedRatioToACalibrationLoop) {
  const std::string source = PACFLOW_SOURCE_DIR;
  testing::ScratchDir out("perf_w1");
  const auto w1 = [&] {
    Pipeline pipeline(stages::builtin_registry());
    load_pipe_file(source + "/pipelines/bench/w1.pipe", pipeline);
    pipeline.redirect_outputs(out.path().string()).run();
  };
  w1();  // warm-up: FFTW plans, first-touch page faults
  std::vector<double> w1_s, calibration_s;
  for (int i = 0; i < 5; ++i) {
    calibration_s.push_back(seconds_of(calibration_loop));
    w1_s.push_back(seconds_of(w1));
  }
  const double ratio = median(w1_s) / median(calibration_s);
  std::printf("W1 median %.3f s, calibration median %.3f s, ratio %.2f\n", median(w1_s), median(calibration_s), ratio);

  const std::string baseline_path = source + "/bench/perf_baseline.json";
  if (std::getenv("PACFLOW_RECORD_PERF_BASELINE") != nullptr) {
    const json record = {{"w1_over_calibration", ratio},
                         {"w1_median_s", median(w1_s)},
                         {"calibration_median_s", median(calibration_s)},
                         {"how", "PACFLOW_RECORD_PERF_BASELINE=1 build/tests/perf_tests"}};
    write_file_atomically(baseline_path, record.dump(2) + "\n");
    GTEST_SKIP() << "recorded " << baseline_path;
  }
  std::ifstream in(baseline_path);
  ASSERT_TRUE(in) << "missing " << baseline_path;
  const double recorded = json::parse(in).at("w1_over_calibration").get<double>();
  EXPECT_LE(ratio, 3.0 * recorded) << "W1 became more than 3x slower relative to the calibration loop than the "
                                   << "ratio recorded in bench/perf_baseline.json (" << recorded << ")";
}

}  // namespace
}  // namespace pacflow
