# CUDA: built when nvcc is found (AUTO), required (ON) or skipped (OFF).
set(PACFLOW_HAVE_CUDA OFF)
if(NOT PACFLOW_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # Machine code for the A100 generation (sm_80, which sm_86 and sm_89 cards run too) and the
      # H100's (sm_90), with sm_90's PTX for newer GPUs to compile at load time: three compilations
      # of each kernel, not four (issue 41). -DCMAKE_CUDA_ARCHITECTURES=native builds for this
      # machine's GPU alone.
      set(CMAKE_CUDA_ARCHITECTURES 80-real 90)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    # CMake 3.25 does not know nvcc 13's C++20 flag; teach it.
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(PACFLOW_HAVE_CUDA ON)
  elseif(PACFLOW_CUDA STREQUAL "ON")
    message(FATAL_ERROR "PACFLOW_CUDA=ON but no CUDA compiler (nvcc) was found")
  endif()
endif()
message(STATUS "pacflow: CUDA target ${PACFLOW_HAVE_CUDA}")
