pacflow_stage_folder(ORDER 30
  SOURCES edflib_lock.cpp edf_header_check.cpp edf_file.cpp edf_writer.cpp edf_source.cpp
  ELEMENTS edf_source.hpp:EdfSource
  TESTS edf_source_test.cpp)
