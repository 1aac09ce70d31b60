#pragma once
// Page-locked host memory from the CUDA runtime, for the engine's ring buffers.
#include <cstddef>

namespace pacflow::cuda {

// cudaHostAlloc'd memory, or nullptr when no GPU is visible or the runtime refuses (the caller
// then locks ordinary memory itself). Never throws.
void* host_alloc(std::size_t bytes) noexcept;
void host_free(void* p) noexcept;

}  // namespace pacflow::cuda
