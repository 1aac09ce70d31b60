pacflow_stage_folder(ORDER 65
  SOURCES mi_stage.cpp
  ELEMENTS mi_stage.hpp:ModulationIndexStage
  CUDA_SOURCES mi_cuda_kernel.cpp
  CUDA_KERNELS mi:make_mi_cuda_kernel
  TESTS mi_test.cpp mi_stage_test.cpp methods_device_test.cpp)
