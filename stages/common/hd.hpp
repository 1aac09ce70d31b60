#pragma once
// Marks arithmetic shared by the CPU stages and the CUDA kernels: compiled for both by nvcc, plain
// inline C++ elsewhere, so the CPU tests exercise the exact code the GPU runs.
#if defined(__CUDACC__)
#define PACFLOW_HD __host__ __device__
#else
#define PACFLOW_HD
#endif
