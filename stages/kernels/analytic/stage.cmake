# Kernels: the analytic signal by FFT (spec §4), its phase or envelope, on the CPU (FFTW) and on
# GPUs (cuFFT), with the per-bin arithmetic both compile (hilbert_math.hpp); and TensorPAC's Morlet
# decomposition (morlet.hpp), whose per-sample sum is shared arithmetic too.
pacflow_stage_folder(
  SOURCES analytic_signal.cpp morlet.cpp
  CUDA_SOURCES analytic_signal_cuda.cu morlet_cuda.cu)
