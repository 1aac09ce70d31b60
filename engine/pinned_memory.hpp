#pragma once
// Page-locked host memory for the ring buffers between devices. In CUDA builds with a visible GPU
// it comes from cudaHostAlloc (so copies to and from the device are DMA without staging); otherwise
// it is 64-byte aligned memory locked with mlock(2). Locking can be refused (RLIMIT_MEMLOCK); the
// memory is then ordinary, and `how()` says why, so a run reports it instead of failing.
#include <cstddef>
#include <string>

namespace pacflow {

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  // Zero-filled. Throws std::bad_alloc when the memory cannot be had at all.
  explicit PinnedBuffer(std::size_t bytes);
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& other) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  std::byte* data() { return data_; }
  std::size_t size() const { return bytes_; }
  bool page_locked() const { return kind_ != Kind::Plain; }
  // "cudaHostAlloc", "mlock", or "not page-locked: <reason>".
  std::string how() const;

 private:
  enum class Kind { Plain, Locked, Cuda };
  void release() noexcept;

  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
  Kind kind_ = Kind::Plain;
  int lock_error_ = 0;  // errno of a refused mlock
};

}  // namespace pacflow
