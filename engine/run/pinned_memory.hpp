#pragma once
// Page-locked host memory for the ring buffers between devices. In a run on GPUs it comes from the
// GPU backend (cudaHostAlloc: copies to and from the device are then DMA without staging); otherwise
// it is 64-byte aligned memory locked with mlock(2). Locking can be refused (RLIMIT_MEMLOCK); the
// memory is then ordinary, and `how()` says why, so a run reports it instead of failing.
#include <cstddef>
#include <string>

#include "engine/placement/host_allocator.hpp"

namespace pacflow {

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  // Zero-filled; from `backend` when given and it can, else locked with mlock. Throws std::bad_alloc
  // when the memory cannot be had at all. The backend must outlive the buffer.
  explicit PinnedBuffer(std::size_t bytes, const HostAllocator* backend = nullptr);
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& other) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  std::byte* data() { return data_; }
  std::size_t size() const { return bytes_; }
  bool page_locked() const { return kind_ != Kind::Plain; }
  // The backend's name ("cudaHostAlloc"), "mlock", or "not page-locked: <reason>".
  std::string how() const;

 private:
  enum class Kind { Plain, Locked, Backend };
  void release() noexcept;

  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
  Kind kind_ = Kind::Plain;
  const HostAllocator* backend_ = nullptr;
  int lock_error_ = 0;  // errno of a refused mlock
};

}  // namespace pacflow
