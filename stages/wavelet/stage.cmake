# The wavelet stage: phase and amplitude by TensorPAC's complex Morlet wavelets, in place of
# bandpass and hilbert (the kernel: stages/kernels/analytic/morlet.hpp, morlet_cuda.cu).
pacflow_stage_folder(ORDER 64
  SOURCES wavelet_stage.cpp
  ELEMENTS wavelet_stage.hpp:WaveletStage
  CUDA_SOURCES wavelet_cuda_kernel.cpp
  CUDA_KERNELS wavelet:make_wavelet_cuda_kernel
  TESTS wavelet_test.cpp)
