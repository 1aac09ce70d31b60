#include <fmt/format.h>
#include <gtest/gtest.h>
#include <utility>
#include <vector>

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

// PACFLOW_LOGICAL_GPUS: a whole number from 1 to 64; anything else says what it expected.
TEST(LogicalGpus, TheVariableIsAWholeNumberOfGpusPerGpu) {
  EXPECT_EQ(cuda::parse_logical_gpus(nullptr).per_gpu, 1);
  EXPECT_EQ(cuda::parse_logical_gpus("").per_gpu, 1);
  for (const auto& [text, n] : {std::pair{"1", 1}, {"4", 4}, {"64", 64}}) {
    const cuda::LogicalGpus parsed = cuda::parse_logical_gpus(text);
    EXPECT_EQ(parsed.per_gpu, n) << text;
    EXPECT_EQ(parsed.error, "") << text;
  }
  for (const char* bad : {"0", "65", "-1", "four", "4x", " 4", "2.5"}) {
    const cuda::LogicalGpus parsed = cuda::parse_logical_gpus(bad);
    EXPECT_EQ(parsed.per_gpu, 1) << bad;
    EXPECT_EQ(parsed.error, fmt::format("PACFLOW_LOGICAL_GPUS={}: expected a whole number of logical GPUs per GPU, "
                                        "from 1 to 64",
                                        bad));
  }
}

// Each GPU becomes N consecutive logical ones on its CUDA device, each with 1/N of its memory.
TEST(LogicalGpus, EachGpuBecomesConsecutiveLogicalOnesSharingItsMemory) {
  const std::vector<GpuInfo> gpus = {{0, 0, 1, "A", 80'000, 9, 0}, {1, 1, 1, "B", 40'000, 8, 0}};
  const std::vector<GpuInfo> logical = cuda::split_into_logical(gpus, 3);
  ASSERT_EQ(logical.size(), 6u);
  for (int i = 0; i < 6; ++i) {
    const GpuInfo& d = logical[static_cast<std::size_t>(i)];
    EXPECT_EQ(d.index, i);
    EXPECT_EQ(d.ordinal, i / 3);
    EXPECT_EQ(d.shares, 3);
    EXPECT_EQ(d.name, i < 3 ? "A" : "B");
    EXPECT_EQ(d.memory_bytes, i < 3 ? 26'666u : 13'333u);
    EXPECT_EQ(d.compute_major, i < 3 ? 9 : 8);
  }
  EXPECT_EQ(cuda::split_into_logical(gpus, 1).size(), 2u);
}

// Every visible GPU as four logical ones: four times the devices, on the same CUDA devices.
TEST(LogicalGpus, VisibleDevicesSplitEveryGpu) {
  const GpuAvailability physical = cuda::visible_devices();
  const GpuAvailability logical = cuda::visible_devices(4);
  EXPECT_EQ(logical.count(), 4 * physical.count());
  EXPECT_EQ(logical.why_none, physical.why_none);
  for (const GpuInfo& d : logical.devices) EXPECT_EQ(d.ordinal, d.index / 4);
}

}  // namespace
}  // namespace pacflow
