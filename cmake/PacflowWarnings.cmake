# Project-wide compile options, applied through the pacflow_options interface target.
add_library(pacflow_options INTERFACE)
target_compile_options(pacflow_options INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
if(PACFLOW_WERROR)
  target_compile_options(pacflow_options INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
if(PACFLOW_NATIVE)
  target_compile_options(pacflow_options INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-march=native>)
endif()
if(PACFLOW_SANITIZE)
  # Everything halts on the first report; vptr stays recoverable so tools/sanitizers/ubsan.supp can
  # exempt oneTBB's internal downcasts (the test presets set halt_on_error=1 as well).
  target_compile_options(pacflow_options INTERFACE -fsanitize=${PACFLOW_SANITIZE} -fno-omit-frame-pointer
    -fno-sanitize-recover=all)
  if(PACFLOW_SANITIZE MATCHES "undefined")
    target_compile_options(pacflow_options INTERFACE -fsanitize-recover=vptr)
  endif()
  target_link_options(pacflow_options INTERFACE -fsanitize=${PACFLOW_SANITIZE})
endif()
target_include_directories(pacflow_options INTERFACE ${PROJECT_SOURCE_DIR})
target_compile_definitions(pacflow_options INTERFACE PACFLOW_VERSION="${PROJECT_VERSION}")
