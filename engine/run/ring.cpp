#include "engine/run/ring.hpp"

#include <fmt/format.h>
#include <limits>
#include <stdexcept>

namespace pacflow {

namespace {
constexpr std::uint32_t kGrownSlot = std::numeric_limits<std::uint32_t>::max();
}  // namespace

RingSlot::RingSlot(Ring& ring, std::uint32_t index, std::uint64_t generation, std::unique_ptr<AlignedBuffer> overflow)
    : ring_(&ring), index_(index), generation_(generation), overflow_(std::move(overflow)) {}

RingSlot::~RingSlot() {
  if (given_back_) return;
  try {
    give_back();  // a cancelled run: the batch dies holding its slot
  } catch (...) {
  }
}

Tensor RingSlot::lend(const SlotTensor& t, std::int64_t series, const std::string& device) const {
  Shape shape{t.rows(series)};
  shape.insert(shape.end(), t.per_row.begin(), t.per_row.end());
  const bool grown = overflow_ != nullptr;
  std::byte* base = grown ? overflow_->data() : ring_->slots_[index_].memory.data();
  const auto& generation = grown ? overflow_generation_ : ring_->slots_[index_].generation;
  return Tensor(std::move(shape), t.dtype,
                BorrowedMemory{base + t.offset, t.bytes_per_row * static_cast<std::size_t>(t.rows(series)), &generation,
                               grown ? 0 : generation_},
                device);
}

void RingSlot::give_back() {
  if (given_back_) throw std::logic_error(fmt::format("slot of ring \"{}\" given back twice", ring_->name()));
  given_back_ = true;
  if (overflow_) {
    overflow_generation_.fetch_add(1, std::memory_order_acq_rel);
    ring_->in_use_.fetch_sub(1);
    return;
  }
  ring_->give_back(index_, generation_);
}

Ring::Ring(std::string name, std::size_t capacity, std::int64_t batch_series, std::vector<SlotTensor> tensors,
           Overflow overflow, const HostAllocator* page_locked)
    : name_(std::move(name)),
      batch_series_(batch_series),
      tensors_(std::move(tensors)),
      overflow_(overflow),
      slots_(capacity),
      free_(capacity) {
  if (capacity == 0 || batch_series <= 0) throw std::logic_error("a ring needs at least one slot of one series");
  slot_bytes_ = lay_out_slot(tensors_, batch_series_);
  for (std::uint32_t i = 0; i < capacity; ++i) {
    slots_[i].memory = PinnedBuffer(slot_bytes_, page_locked);
    free_.push(i);
  }
}

std::unique_ptr<RingSlot> Ring::take() {
  std::uint32_t index = 0;
  if (!free_.pop(index)) {
    ++waits_;
    if (overflow_ == Overflow::Block) return nullptr;
    if (overflow_ == Overflow::Fail)
      throw std::runtime_error(fmt::format("ring \"{}\" is full ({} slot{} of {} series taken) and its overflow "
                                           "policy is fail; raise ring=, or use overflow=block to wait",
                                           name_, slots_.size(), slots_.size() == 1 ? "" : "s", batch_series_));
    ++grown_;
    note_taken();
    return std::make_unique<RingSlot>(*this, kGrownSlot, 0, std::make_unique<AlignedBuffer>(slot_bytes_));
  }
  note_taken();
  return std::make_unique<RingSlot>(*this, index, slots_[index].generation.load(std::memory_order_acquire));
}

void Ring::note_taken() {
  const std::size_t now = ++in_use_;
  for (std::size_t seen = high_water_.load(); now > seen && !high_water_.compare_exchange_weak(seen, now);) {
  }
}

void Ring::give_back(std::uint32_t index, std::uint64_t generation) {
  std::uint64_t expected = generation;
  // The generation moves on exactly once per lending: a stale or repeated give-back is a bug.
  if (!slots_[index].generation.compare_exchange_strong(expected, generation + 1, std::memory_order_acq_rel))
    throw std::logic_error(fmt::format("slot {} of ring \"{}\" given back at generation {}, but it is at {}", index,
                                       name_, generation, expected));
  --in_use_;
  free_.push(index);
}

}  // namespace pacflow
