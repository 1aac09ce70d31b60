#include "engine/run/pinned_memory.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sys/mman.h>
#include <utility>

#include "engine/api/tensor.hpp"

namespace pacflow {

PinnedBuffer::PinnedBuffer(std::size_t bytes, const HostAllocator* backend) : bytes_(bytes) {
  if (bytes == 0) return;
  const std::size_t rounded = align_up(bytes);
  if (backend)
    if (void* p = backend->allocate(rounded)) {
      data_ = static_cast<std::byte*>(p);
      kind_ = Kind::Backend;
      backend_ = backend;
      std::memset(data_, 0, rounded);
      return;
    }
  data_ = static_cast<std::byte*>(std::aligned_alloc(kHostAlignment, rounded));
  if (!data_) throw std::bad_alloc();
  std::memset(data_, 0, rounded);  // touch every page before locking it
  if (mlock(data_, rounded) == 0)
    kind_ = Kind::Locked;
  else
    lock_error_ = errno;
}

PinnedBuffer::~PinnedBuffer() { release(); }

PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      kind_(std::exchange(other.kind_, Kind::Plain)),
      backend_(std::exchange(other.backend_, nullptr)),
      lock_error_(std::exchange(other.lock_error_, 0)) {}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    kind_ = std::exchange(other.kind_, Kind::Plain);
    backend_ = std::exchange(other.backend_, nullptr);
    lock_error_ = std::exchange(other.lock_error_, 0);
  }
  return *this;
}

void PinnedBuffer::release() noexcept {
  if (!data_) return;
  switch (kind_) {
    case Kind::Backend: backend_->free(data_); break;
    case Kind::Locked: munlock(data_, align_up(bytes_)); [[fallthrough]];
    case Kind::Plain: std::free(data_); break;
  }
  data_ = nullptr;
}

std::string PinnedBuffer::how() const {
  switch (kind_) {
    case Kind::Backend: return backend_->name();
    case Kind::Locked: return "mlock";
    case Kind::Plain: break;
  }
  if (bytes_ == 0) return "empty";
  return std::string("not page-locked: mlock refused (") + std::strerror(lock_error_) +
         "; raise RLIMIT_MEMLOCK, e.g. ulimit -l)";
}

}  // namespace pacflow
