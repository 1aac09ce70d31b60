// A tensor's own memory: zero and aligned whatever its size; a large one on a mapping of its own that
// starts on a huge page (engine/api/huge_pages.hpp), given back when the tensor goes.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <utility>

#include "engine/api/huge_pages.hpp"
#include "engine/api/tensor.hpp"

namespace pacflow {
namespace {

bool all_zero(const Tensor& tensor) {
  const auto* bytes = tensor.raw();
  return std::all_of(bytes, bytes + tensor.bytes(), [](std::byte b) { return b == std::byte{0}; });
}

std::uintptr_t start_of(const Tensor& tensor) { return reinterpret_cast<std::uintptr_t>(tensor.raw()); }

TEST(TensorMemory, EverySizeIsZeroAlignedAndWritableToItsLastByte) {
  const std::int64_t threshold_floats = static_cast<std::int64_t>(kHugePageThreshold / sizeof(float));
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{1000}, threshold_floats - 1, threshold_floats,
                               threshold_floats + 1, 3 * threshold_floats + 17}) {
    Tensor tensor({n}, DType::Float32);
    ASSERT_EQ(tensor.size(), n);
    EXPECT_EQ(start_of(tensor) % kHostAlignment, 0u) << n;
    EXPECT_TRUE(all_zero(tensor)) << n;
    std::span<float> values = tensor.values<float>();
    values.front() = 1.0F;
    values.back() = 2.0F;
    EXPECT_EQ(values.back(), 2.0F);
  }
}

TEST(TensorMemory, LargeTensorsStartOnAHugePage) {
  Tensor large({static_cast<std::int64_t>(kHugePageThreshold / sizeof(double))}, DType::Float64);
  EXPECT_EQ(start_of(large) % kHugePageBytes, 0u);
  Tensor small({static_cast<std::int64_t>(kHugePageThreshold / sizeof(double)) - 1}, DType::Float64);
  EXPECT_EQ(start_of(small) % kHostAlignment, 0u);
}

TEST(TensorMemory, MemoryFreedAndTakenAgainIsZero) {
  // Whatever the allocator hands back after a tensor of the same size goes, a new tensor reads zero.
  for (const std::int64_t n : {std::int64_t{4096}, static_cast<std::int64_t>(kHugePageThreshold)}) {
    for (int round = 0; round < 3; ++round) {
      Tensor tensor({n}, DType::UInt8);
      ASSERT_TRUE(all_zero(tensor)) << n << " bytes, round " << round;
      std::memset(tensor.raw(), 0xFF, tensor.bytes());
    }
  }
}

TEST(TensorMemory, AMovedLargeTensorKeepsItsMemory) {
  Tensor from({static_cast<std::int64_t>(kHugePageThreshold)}, DType::UInt8);
  from.raw()[12345] = std::byte{7};
  const std::byte* address = from.address();
  Tensor to = std::move(from);
  EXPECT_EQ(to.address(), address);
  EXPECT_EQ(to.raw()[12345], std::byte{7});
  Tensor assigned({1}, DType::UInt8);
  assigned = std::move(to);  // the small buffer goes back to the heap, the mapping moves
  EXPECT_EQ(assigned.address(), address);
  EXPECT_EQ(assigned.raw()[12345], std::byte{7});
}

TEST(HugePages, MappingsStartOnAHugePageAndEndOnTheBasePageAfterTheirLastByte) {
  for (const std::size_t bytes : {std::size_t{1}, kHugePageBytes, kHugePageBytes + 4097, 3 * kHugePageBytes}) {
    std::byte* p = map_huge_pages(bytes);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % kHugePageBytes, 0u) << bytes;
    EXPECT_GE(mapped_length(bytes), bytes);
    EXPECT_LT(mapped_length(bytes) - bytes, 65536u) << "a base page at most, not a huge page";
    p[0] = std::byte{1};
    p[bytes - 1] = std::byte{1};
    unmap_pages(p, mapped_length(bytes));
  }
  EXPECT_EQ(map_huge_pages(0), nullptr);
  // Advice over a range holding no whole huge page, or none at all, does nothing and fails nothing.
  std::byte unaligned[100] = {};
  advise_huge_pages(unaligned + 1, sizeof unaligned - 1);
  advise_huge_pages(nullptr, 0);
  EXPECT_EQ(unaligned[0], std::byte{0});
}

}  // namespace
}  // namespace pacflow
