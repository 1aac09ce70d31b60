# ccache, when installed (issue 41): a rebuild of unchanged units (another build folder of the same
# sources, a branch switched back) takes seconds. -DPACFLOW_CCACHE=OFF leaves the compiler as it is.
option(PACFLOW_CCACHE "Compile through ccache when it is installed" ON)
if(PACFLOW_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(PACFLOW_CCACHE_PROGRAM ccache)
  if(PACFLOW_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER ${PACFLOW_CCACHE_PROGRAM})
    if(PACFLOW_HAVE_CUDA)
      set(CMAKE_CUDA_COMPILER_LAUNCHER ${PACFLOW_CCACHE_PROGRAM})
    endif()
    message(STATUS "ccache: ${PACFLOW_CCACHE_PROGRAM}")
  endif()
endif()
