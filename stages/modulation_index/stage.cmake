pacflow_stage_folder(ORDER 65
  SOURCES shifted_mi.cpp run_table.cpp mi_stage.cpp pairs.cpp
    methods/method.cpp methods/shifted_sums.cpp methods/binned_methods.cpp methods/vector_length_methods.cpp
    methods/plv_method.cpp methods/copula.cpp methods/gaussian_copula_method.cpp
  ELEMENTS mi_stage.hpp:ModulationIndexStage
  CUDA_SOURCES shifted_mi_cuda.cu run_mi_cuda.cu mi_cuda_kernel.cpp
  CUDA_KERNELS mi:make_mi_cuda_kernel
  TESTS mi_test.cpp run_mi_math_test.cpp methods/methods_test.cpp mi_stage_test.cpp methods_device_test.cpp)
