#pragma once
// Marks arithmetic shared by the CPU stages and the CUDA kernels: compiled for both by nvcc, plain
// inline C++ elsewhere, so the CPU tests exercise the exact code the GPU runs.
#if defined(__CUDACC__)
#define PACFLOW_HD __host__ __device__
#else
#define PACFLOW_HD
#endif

// Shared arithmetic that CPU kernels also call on vector types (simd::Simd<Bytes>) from functions
// compiled per instruction set (stages/common/lanes.hpp): it must be inlined into each instance,
// because a call between code built for different vector widths would pass vectors differently.
#if defined(__CUDACC__)
#define PACFLOW_HD_INLINE __host__ __device__ __forceinline__
#else
#define PACFLOW_HD_INLINE inline __attribute__((always_inline))
#endif
