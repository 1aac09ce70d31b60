// Ring buffers between devices: slots as tokens, the generation guard, overflow policies, and the
// producer end that re-cuts batches into slots without losing or reordering a series.
#include <cstring>
#include <gtest/gtest.h>
#include <numeric>
#include <tuple>

#include "engine/run/pinned_memory.hpp"
#include "engine/run/ring.hpp"
#include "engine/run/ring_edge.hpp"

namespace pacflow {
namespace {

std::vector<SlotTensor> two_tensors() {
  // One float per series, then three doubles per series: offsets must stay 64-byte aligned.
  return {SlotTensor{"a", {1}, DType::Float32, 4, 0}, SlotTensor{"b", {3}, DType::Float64, 24, 0}};
}

TEST(PinnedBuffer, IsZeroedAlignedAndSaysHowItIsHeld) {
  PinnedBuffer buffer(1000);
  ASSERT_NE(buffer.data(), nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % 64, 0u);
  for (std::size_t i = 0; i < buffer.size(); ++i) ASSERT_EQ(buffer.data()[i], std::byte{0});
  // Locked, or plain with the reason (RLIMIT_MEMLOCK), never silently either.
  if (buffer.page_locked())
    EXPECT_TRUE(buffer.how() == "mlock" || buffer.how() == "cudaHostAlloc") << buffer.how();
  else
    EXPECT_NE(buffer.how().find("RLIMIT_MEMLOCK"), std::string::npos) << buffer.how();
  PinnedBuffer moved = std::move(buffer);
  EXPECT_EQ(buffer.data(), nullptr);
  EXPECT_EQ(moved.size(), 1000u);
}

TEST(Ring, LaysOutTensorsAlignedPerSlot) {
  auto tensors = two_tensors();
  EXPECT_EQ(lay_out_slot(tensors, 5), 64u + 128u);  // 20 bytes -> 64, 120 bytes -> 128
  EXPECT_EQ(tensors[0].offset, 0u);
  EXPECT_EQ(tensors[1].offset, 64u);
}

TEST(Ring, FreeSlotsAreTokensAndBlockWhenAllAreTaken) {
  Ring ring("a → b", 2, 5, two_tensors(), Overflow::Block);
  auto first = ring.take();
  auto second = ring.take();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(ring.take(), nullptr);  // back-pressure: the producer must wait
  EXPECT_EQ(ring.waits(), 1u);
  EXPECT_EQ(ring.in_use(), 2u);
  first->give_back();
  auto third = ring.take();
  EXPECT_NE(third, nullptr);
  EXPECT_EQ(ring.high_water(), 2u);
}

TEST(Ring, LentTensorsFailAfterTheirSlotIsGivenBack) {
  Ring ring("a → b", 1, 4, two_tensors(), Overflow::Block);
  auto slot = ring.take();
  Tensor b = slot->lend(ring.tensors()[1], 4, "cpu");
  EXPECT_EQ(b.shape(), (Shape{4, 3}));
  b.values<double>()[11] = 2.5;
  EXPECT_TRUE(b.borrowed());
  slot->give_back();
  EXPECT_THROW(b.values<double>(), std::logic_error);  // the slot may already hold another batch
  EXPECT_THROW(slot->give_back(), std::logic_error);   // and cannot be given back twice
  auto again = ring.take();
  Tensor b2 = again->lend(ring.tensors()[1], 4, "cpu");
  EXPECT_EQ(b2.values<double>()[11], 2.5);  // the same memory, now under a new generation
}

TEST(Ring, FailPolicyNamesTheRingAndGrowPolicyLendsExtraSlots) {
  Ring failing("mi → surrogates", 1, 2, two_tensors(), Overflow::Fail);
  auto held = failing.take();
  try {
    failing.take();
    FAIL() << "expected the full ring to fail";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("mi → surrogates"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("overflow"), std::string::npos) << e.what();
  }
  Ring growing("x → y", 1, 2, two_tensors(), Overflow::Grow);
  auto a = growing.take();
  auto extra = growing.take();
  ASSERT_NE(extra, nullptr);
  EXPECT_EQ(growing.grown(), 1u);
  EXPECT_EQ(growing.high_water(), 2u);
  Tensor t = extra->lend(growing.tensors()[0], 2, "cpu");
  t.values<float>()[1] = 1;
  extra->give_back();
  EXPECT_THROW(t.values<float>(), std::logic_error);
  EXPECT_EQ(growing.in_use(), 1u);
}

// An upstream batch of `count` series from `first`: a[i] = i, b[i] = (i, -i, 10 i).
std::shared_ptr<Batch> upstream(std::int64_t index, std::int64_t first, std::int64_t count) {
  auto batch = std::make_shared<Batch>();
  batch->index = index;
  batch->first_series = first;
  batch->series_count = count;
  auto a = batch->emplace("a", {1}, DType::Float32).values<float>();
  auto b = batch->emplace("b", {3}, DType::Float64).values<double>();
  for (std::int64_t s = 0; s < count; ++s) {
    const auto i = static_cast<std::size_t>(s);
    a[i] = static_cast<float>(first + s);
    b[3 * i] = static_cast<double>(first + s);
    b[3 * i + 1] = -static_cast<double>(first + s);
    b[3 * i + 2] = 10.0 * static_cast<double>(first + s);
  }
  batch->emplace("dropped", {2}, DType::Float32);  // not crossing: stays behind
  return batch;
}

TEST(RingEdge, RecutsBatchesIntoSlotsKeepingEverySeriesInOrder) {
  // 13 series in upstream batches of 5, re-cut into downstream batches of 3, two slots.
  Ring ring("u → d", 2, 3, two_tensors(), Overflow::Block);
  RingEdge edge(ring, 0, 13);
  EXPECT_EQ(edge.batch_count(), 5);
  std::vector<std::shared_ptr<Batch>> delivered;
  std::int64_t consumed = 0;
  auto drain = [&](RingEdge::Step step) {
    consumed += static_cast<std::int64_t>(step.consumed.size());
    for (auto& b : step.ready) delivered.push_back(std::move(b));
  };
  drain(edge.feed(upstream(0, 0, 5)));
  // Two slots: series 0-2 and 3-5 are taken, so batch 0 (0-4) is copied but the edge is blocked.
  EXPECT_EQ(delivered.size(), 1u);
  EXPECT_EQ(consumed, 1);
  drain(edge.feed(upstream(1, 5, 5)));
  EXPECT_EQ(delivered.size(), 2u);
  EXPECT_TRUE(edge.blocked());
  std::vector<float> a_seen;
  std::vector<double> b_seen;
  const auto take = [&](std::shared_ptr<Batch> b) {
    EXPECT_FALSE(b->has("dropped"));
    for (float v : b->at("a").values<float>()) a_seen.push_back(v);
    for (double v : b->at("b").values<double>()) b_seen.push_back(v);
    b->slot->give_back();
  };
  take(delivered[0]);
  drain(edge.feed(nullptr));  // a slot came back
  drain(edge.feed(upstream(2, 10, 3)));
  for (std::size_t i = 1; i < delivered.size(); ++i) {
    take(delivered[i]);
    drain(edge.feed(nullptr));
  }
  // Keep draining until every batch has come through.
  while (delivered.size() < 5) {
    const std::size_t before = delivered.size();
    drain(edge.feed(nullptr));
    ASSERT_GT(delivered.size(), before) << "the edge stalled with free slots";
    for (std::size_t i = before; i < delivered.size(); ++i) take(delivered[i]);
  }
  EXPECT_EQ(consumed, 3);
  EXPECT_FALSE(edge.blocked());
  for (std::size_t i = 0; i < delivered.size(); ++i) {
    EXPECT_EQ(delivered[i]->index, static_cast<std::int64_t>(i));
    EXPECT_EQ(delivered[i]->first_series, static_cast<std::int64_t>(3 * i));
  }
  EXPECT_EQ(delivered.back()->series_count, 1);
  ASSERT_EQ(a_seen.size(), 13u);
  for (std::size_t i = 0; i < 13; ++i) {
    EXPECT_EQ(a_seen[i], static_cast<float>(i));
    EXPECT_EQ(b_seen[3 * i + 1], -static_cast<double>(i));
    EXPECT_EQ(b_seen[3 * i + 2], 10.0 * static_cast<double>(i));
  }
}

// A resumed run carries only the series after those a checkpoint recorded: series 7 to 12 here.
TEST(RingEdge, CarriesASeriesRangeThatStartsPastZero) {
  Ring ring("u → d", 2, 4, two_tensors(), Overflow::Block);
  RingEdge edge(ring, 7, 13);
  EXPECT_EQ(edge.batch_count(), 2);
  std::vector<std::shared_ptr<Batch>> delivered;
  for (auto& b : edge.feed(upstream(0, 7, 6)).ready) delivered.push_back(std::move(b));
  ASSERT_EQ(delivered.size(), 2u);
  EXPECT_EQ(delivered[0]->first_series, 7);
  EXPECT_EQ(delivered[0]->series_count, 4);
  EXPECT_EQ(delivered[1]->first_series, 11);
  EXPECT_EQ(delivered[1]->series_count, 2);
  const auto a = delivered[1]->at("a").values<float>();
  EXPECT_EQ(a[0], 11.0f);
  EXPECT_EQ(a[1], 12.0f);
  Ring other("u → d", 2, 4, two_tensors(), Overflow::Block);
  EXPECT_THROW(RingEdge(other, 7, 13).feed(upstream(0, 0, 6)), std::logic_error) << "series 0 is not due";
}

// Rank 1 of 2 carries batches 1, 3, … of the stream, whole (over ranks every segment has one batch
// size): each leaves with its index and series; a batch of another rank's is refused.
TEST(RingEdge, ARankPassesItsOwnBatchesOnWhole) {
  Ring ring("u → d", 2, 4, two_tensors(), Overflow::Block);
  RingEdge edge(ring, 0, 14, 1, 2);
  std::vector<std::shared_ptr<Batch>> delivered;
  for (const auto& [index, first, count] : {std::tuple{1, 4, 4}, {3, 12, 2}}) {
    const RingEdge::Step step = edge.feed(upstream(index, first, count));
    ASSERT_EQ(step.ready.size(), 1u);
    ASSERT_EQ(step.consumed.size(), 1u);
    delivered.push_back(step.ready.front());
  }
  EXPECT_EQ(delivered[0]->index, 1);
  EXPECT_EQ(delivered[0]->first_series, 4);
  EXPECT_EQ(delivered[0]->series_count, 4);
  EXPECT_EQ(delivered[1]->index, 3);
  EXPECT_EQ(delivered[1]->first_series, 12);
  EXPECT_EQ(delivered[1]->series_count, 2);
  EXPECT_EQ(delivered[1]->at("a").values<float>()[1], 13.0f);
  Ring other("u → d", 2, 4, two_tensors(), Overflow::Block);
  EXPECT_THROW(RingEdge(other, 0, 14, 1, 2).feed(upstream(0, 0, 4)), std::logic_error) << "batch 0 is rank 0's";
}

TEST(RingEdge, RefusesSeriesOutOfOrder) {
  Ring ring("u → d", 2, 4, two_tensors(), Overflow::Block);
  RingEdge edge(ring, 0, 10);
  EXPECT_THROW(edge.feed(upstream(1, 5, 5)), std::logic_error);
}

}  // namespace
}  // namespace pacflow
