# Project-wide compile options, applied through the pacflow_options interface target.
add_library(pacflow_options INTERFACE)
target_compile_options(pacflow_options INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
  # GCC notes that 64-byte vectors passed by value changed ABI in GCC 4.6; ours never cross a
  # compiled-function boundary (stages/common/lanes.hpp), and the pragma there cannot mute the note.
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-psabi>
  # No fused multiply-adds behind our back: a build for another instruction set (or a -march=native
  # one) must give the same bits, spec §9.
  $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off>)
if(PACFLOW_WERROR)
  target_compile_options(pacflow_options INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
if(PACFLOW_NATIVE)
  target_compile_options(pacflow_options INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-march=native>)
endif()
if(PACFLOW_SANITIZE)
  # Everything halts on the first report.
  target_compile_options(pacflow_options INTERFACE -fsanitize=${PACFLOW_SANITIZE} -fno-omit-frame-pointer
    -fno-sanitize-recover=all)
  if(PACFLOW_SANITIZE MATCHES "undefined")
    # oneTBB's flow graph (header code, inlined into ours) downcasts its task objects while
    # destroying them, which the vptr check misreports ("downcast of address ... which does not
    # point to an object of type 'forward_task_bypass'"). Suppressions cannot reliably target
    # header code, so that one check is off; every other UBSan check stays on.
    target_compile_options(pacflow_options INTERFACE -fno-sanitize=vptr)
  endif()
  target_link_options(pacflow_options INTERFACE -fsanitize=${PACFLOW_SANITIZE})
endif()
target_include_directories(pacflow_options INTERFACE ${PROJECT_SOURCE_DIR})
target_compile_definitions(pacflow_options INTERFACE PACFLOW_VERSION="${PROJECT_VERSION}")

if(PACFLOW_HAVE_CUDA)
  # CUDA code: with PACFLOW_WERROR every nvcc warning is an error; the host compiler sees the
  # project's warnings. No
  # fused multiply-adds (--fmad=false), like -ffp-contract=off on the CPU: the __host__ __device__
  # arithmetic gives the same bits on both. Relaxed constexpr lets device code use std::numbers.
  target_compile_options(pacflow_options INTERFACE
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --fmad=false --expt-relaxed-constexpr>)
  if(PACFLOW_WERROR)
    target_compile_options(pacflow_options INTERFACE $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
  endif()
endif()
