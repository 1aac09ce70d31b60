pacflow_stage_folder(ORDER 63
  SOURCES hilbert_stage.cpp
  ELEMENTS hilbert_stage.hpp:HilbertStage
  CUDA_SOURCES hilbert_cuda_kernel.cpp
  CUDA_KERNELS hilbert:make_hilbert_cuda_kernel
  TESTS hilbert_test.cpp)
