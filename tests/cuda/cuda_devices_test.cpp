#include <gtest/gtest.h>

#include "engine/cuda/cuda_devices.hpp"

namespace pacflow {
namespace {

TEST(CudaDevices, EnumeratesWithoutCrashingAndDescribesEachDevice) {
  std::string why;
  const auto devices = cuda::visible_devices(&why);
  if (devices.empty()) GTEST_SKIP() << "no GPU visible: " << why;
  for (const auto& d : devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GT(d.memory_bytes, 0u);
    EXPECT_GE(d.compute_major, 7);
  }
}

}  // namespace
}  // namespace pacflow
