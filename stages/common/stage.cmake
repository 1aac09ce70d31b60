# Helpers the stages share: FFTW plans, SIMD lanes, whole-input reads, band coordinates; cuFFT plans.
pacflow_stage_folder(
  SOURCES fftw.cpp lanes.cpp whole_input.cpp
  CUDA_SOURCES cufft_plans.cpp narrow_cuda.cu)
