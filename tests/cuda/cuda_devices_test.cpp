#include <gtest/gtest.h>

#include "engine/devices/cuda/cuda_devices.hpp"

namespace pacflow {
namespace {

TEST(CudaDevices, EnumeratesWithoutCrashingAndDescribesEachDevice) {
  const GpuAvailability gpus = cuda::visible_devices();
  EXPECT_FALSE(gpus.versions.empty());
  if (gpus.devices.empty()) GTEST_SKIP() << "no GPU visible: " << gpus.why_none;
  EXPECT_TRUE(gpus.why_none.empty());
  for (const auto& d : gpus.devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GT(d.memory_bytes, 0u);
    EXPECT_GE(d.compute_major, 7);
  }
}

}  // namespace
}  // namespace pacflow
