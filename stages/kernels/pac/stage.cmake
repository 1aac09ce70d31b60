# Kernels: the PAC measures (spec §5; methods/: Tort MI, MVL, ndPAC, PLV, heights ratio, Gaussian
# copula), the run-length MI over time shifts (run_table, shifted_mi) and the phase/amplitude band
# pairs, on the CPU and on GPUs, with the arithmetic both compile (mi_math.hpp, run_mi_math.hpp).
pacflow_stage_folder(
  SOURCES shifted_mi.cpp run_table.cpp pairs.cpp
    methods/method.cpp methods/shifted_sums.cpp methods/binned_methods.cpp methods/vector_length_methods.cpp
    methods/plv_method.cpp methods/copula.cpp methods/distinct_ranks.cpp methods/circular_correlation.cpp
    methods/gaussian_copula_method.cpp
  CUDA_SOURCES shifted_mi_cuda.cu run_mi_cuda.cu
  TESTS run_mi_math_test.cpp methods/methods_test.cpp)
