pacflow_stage_folder(ORDER 62
  SOURCES bandpass_stage.cpp
  ELEMENTS bandpass_stage.hpp:BandpassStage
  CUDA_SOURCES bandpass_cuda_kernel.cpp
  CUDA_KERNELS bandpass:make_bandpass_cuda_kernel
  TESTS bandpass_test.cpp)
