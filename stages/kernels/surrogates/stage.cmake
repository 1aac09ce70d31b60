# Kernels: surrogate statistics (spec §6: z-scores and p-values from shifted MIs) on the CPU and on
# GPUs (surrogate_math.hpp both compile), and the trial-level permutation test (spec §6.4).
pacflow_stage_folder(
  SOURCES surrogate_stats_cpu.cpp trial_statistics.cpp family_test.cpp row_add.cpp
  CUDA_SOURCES surrogate_stats_cuda.cu)
