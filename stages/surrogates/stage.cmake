pacflow_stage_folder(ORDER 66
  SOURCES surrogates_stage.cpp
  ELEMENTS surrogates_stage.hpp:SurrogatesStage
  CUDA_SOURCES surrogates_cuda_kernel.cpp
  CUDA_KERNELS surrogates:make_surrogates_cuda_kernel
  TESTS surrogates_test.cpp trial_statistics_test.cpp surrogate_methods_test.cpp)
