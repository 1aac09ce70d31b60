# The wavelet stage: phase and amplitude by TensorPAC's complex Morlet wavelets, in place of
# bandpass and hilbert (the kernel: stages/kernels/analytic/morlet.hpp).
pacflow_stage_folder(ORDER 64
  SOURCES wavelet_stage.cpp
  ELEMENTS wavelet_stage.hpp:WaveletStage
  TESTS wavelet_test.cpp)
