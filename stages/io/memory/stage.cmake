# The array source and sink for callers that hold data in memory (the Python module): not built-in
# elements, added by such a caller to its own registry.
pacflow_stage_folder(
  SOURCES host_array.cpp memory_source.cpp memory_sink.cpp
  TESTS memory_io_test.cpp)
