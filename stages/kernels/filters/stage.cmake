# Kernels: the band edges and filter orders of spec §2–§3 (bands), FIR design (fir1, MATLAB's window
# method) and zero-phase FFT filtering of many series through a bank of filters (filtfilt), on the
# CPU (FFTW) and on GPUs (cuFFT), with the per-bin arithmetic both compile (filtfilt_math.hpp).
pacflow_stage_folder(
  SOURCES bands.cpp fir1.cpp filtfilt_fft.cpp
  CUDA_SOURCES filtfilt_cuda.cu)
