# pacflow_shared_library(TARGET): the engine, the stages and the CUDA plugin are shared libraries in
# build/lib, side by side: the engine finds the plugin beside itself (engine/devices/gpu_plugin.cpp).
function(pacflow_shared_library target)
  # Installed (the Python package) side by side too, each finding the others beside itself.
  set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib INSTALL_RPATH "$ORIGIN"
                        INSTALL_RPATH_USE_LINK_PATH TRUE)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # Calls inside a library stay direct (and inlinable) as in a static build: nobody interposes ours.
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-semantic-interposition>)
  endif()
endfunction()
