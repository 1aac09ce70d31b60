# Helpers the stages share: FFTW plans, SIMD lanes, whole-input reads, outputs= lists, a series'
# extremes in vectors; cuFFT plans.
pacflow_stage_folder(
  SOURCES fftw.cpp lanes.cpp whole_input.cpp output_names.cpp extremes.cpp
  CUDA_SOURCES cufft_plans.cpp narrow_cuda.cu
  TESTS extremes_test.cpp)
