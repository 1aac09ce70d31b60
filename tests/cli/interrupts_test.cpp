// The CLI's signal watch (tools/pipeline_cli/interrupts.hpp) ends as soon as it is destroyed, so a
// command exits once its work is done (it waited for the watch's next tick, up to 50 ms, before).
// What a signal does to a run: CliSignal.* (cli_test.cpp), on the real command.
#include <algorithm>
#include <chrono>
#include <gtest/gtest.h>
#include <memory>
#include <thread>
#include <vector>

#include "tools/pipeline_cli/interrupts.hpp"

namespace pacflow::cli {
namespace {

using Clock = std::chrono::steady_clock;

TEST(InterruptWatch, EndsAtOnceWhenDestroyed) {
  std::vector<double> ms;
  for (int i = 0; i < 5; ++i) {
    auto watch = std::make_unique<InterruptWatch>();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the watch waits for signals by now
    const Clock::time_point start = Clock::now();
    watch.reset();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::nth_element(ms.begin(), ms.begin() + 2, ms.end());
  // A tick is 50 ms: waiting for the next one took about 45 ms here; now well under 1 ms when idle.
  EXPECT_LT(ms[2], 30.0) << "median of 5 destructions, ms";
}

}  // namespace
}  // namespace pacflow::cli
