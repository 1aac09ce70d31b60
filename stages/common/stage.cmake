# Helpers the stages share: FFTW plans, SIMD lanes, whole-input reads, outputs= lists; cuFFT plans.
pacflow_stage_folder(
  SOURCES fftw.cpp lanes.cpp whole_input.cpp output_names.cpp
  CUDA_SOURCES cufft_plans.cpp narrow_cuda.cu)
