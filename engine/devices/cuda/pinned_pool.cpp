#include "engine/devices/cuda/pinned_pool.hpp"

namespace pacflow::cuda {

PinnedPool::PinnedPool(const HostAllocator& page_locked)
    : page_locked_(&page_locked), state_(std::make_shared<State>()) {}

SharedMemory PinnedPool::take(std::size_t bytes) {
  const std::size_t size = bytes > 0 ? bytes : 1;
  std::unique_ptr<PinnedBuffer> buffer;
  {
    const std::lock_guard lock(state_->mutex);
    auto& list = state_->free[size];
    if (!list.empty()) {
      buffer = std::move(list.back());
      list.pop_back();
    }
  }
  if (!buffer) {
    buffer = std::make_unique<PinnedBuffer>(size, page_locked_);
    const std::lock_guard lock(state_->mutex);
    state_->held += size;
  }
  std::byte* data = buffer->data();
  std::weak_ptr<State> weak = state_;
  // The owner carries the buffer; letting go puts it back on its size's free list.
  std::shared_ptr<void> owner(buffer.release(), [weak, size](void* p) {
    std::unique_ptr<PinnedBuffer> back(static_cast<PinnedBuffer*>(p));
    if (const auto state = weak.lock()) {
      const std::lock_guard lock(state->mutex);
      state->free[size].push_back(std::move(back));
    }
  });
  return SharedMemory{std::move(owner), data, bytes, true};
}

std::size_t PinnedPool::bytes_held() const {
  const std::lock_guard lock(state_->mutex);
  return state_->held;
}

}  // namespace pacflow::cuda
