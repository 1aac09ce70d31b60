#pragma once
// A ring: the bounded set of pre-allocated, page-locked slots through which batches cross from the
// stages on one device to the stages on another.
//
// A slot holds one batch's worth of the tensors that cross the edge, laid out tensor by tensor.
// Free slots wait in a Boost.Lockfree queue; taking one is the token that lets the producer go on,
// so the ring bounds memory and gives back-pressure at once. Each slot carries a generation
// counter, bumped when it is given back: tensors lent from the slot check it on every access, and
// a slot given back twice is caught.
#include <atomic>
#include <boost/lockfree/queue.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/batch.hpp"
#include "engine/plan/slot_layout.hpp"
#include "engine/run/pinned_memory.hpp"

namespace pacflow {

class Ring;

// A slot held by a batch. Given back by give_back(), or on destruction if the run was cancelled.
class RingSlot final : public SlotLease {
 public:
  RingSlot(Ring& ring, std::uint32_t index, std::uint64_t generation, std::unique_ptr<AlignedBuffer> overflow = {});
  ~RingSlot();
  RingSlot(const RingSlot&) = delete;
  RingSlot& operator=(const RingSlot&) = delete;

  // A tensor over this slot's memory for `t`, holding the rows of `series` series.
  Tensor lend(const SlotTensor& t, std::int64_t series, const std::string& device) const;
  void give_back() override;

 private:
  Ring* ring_;
  std::uint32_t index_;
  std::uint64_t generation_;
  std::unique_ptr<AlignedBuffer> overflow_;  // a grown slot's own memory: ordinary, not page-locked
  std::atomic<std::uint64_t> overflow_generation_{0};
  bool given_back_ = false;
};

class Ring {
 public:
  // `capacity` slots, each for `batch_series` series of `tensors`. Allocates and locks them now (with
  // `page_locked` when given: a GPU backend's allocator, engine/placement/host_allocator.hpp).
  Ring(std::string name, std::size_t capacity, std::int64_t batch_series, std::vector<SlotTensor> tensors,
       Overflow overflow, const HostAllocator* page_locked = nullptr);
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  // A free slot, or nullptr when none is (Block); throws std::runtime_error (Fail); a grown slot
  // (Grow). Thread-safe.
  std::unique_ptr<RingSlot> take();

  const std::string& name() const { return name_; }
  std::size_t capacity() const { return slots_.size(); }
  std::int64_t batch_series() const { return batch_series_; }
  std::size_t slot_bytes() const { return slot_bytes_; }
  const std::vector<SlotTensor>& tensors() const { return tensors_; }
  Overflow overflow() const { return overflow_; }
  std::string memory_kind() const { return slots_.empty() ? "empty" : slots_.front().memory.how(); }

  // Statistics for the report.
  std::size_t high_water() const { return high_water_.load(); }
  std::uint64_t waits() const { return waits_.load(); }        // takes that found no slot free
  std::uint64_t grown() const { return grown_.load(); }        // extra slots lent under Grow
  std::size_t in_use() const { return in_use_.load(); }

 private:
  friend class RingSlot;
  struct Slot {
    PinnedBuffer memory;
    std::atomic<std::uint64_t> generation{0};
  };
  void give_back(std::uint32_t index, std::uint64_t generation);
  void note_taken();

  std::string name_;
  std::int64_t batch_series_;
  std::vector<SlotTensor> tensors_;
  Overflow overflow_;
  std::size_t slot_bytes_ = 0;
  std::vector<Slot> slots_;
  boost::lockfree::queue<std::uint32_t> free_;
  std::atomic<std::size_t> in_use_{0}, high_water_{0};
  std::atomic<std::uint64_t> waits_{0}, grown_{0};
};

}  // namespace pacflow
