pacflow_stage_folder(ORDER 10
  SOURCES synthetic_source.cpp
  ELEMENTS synthetic_source.hpp:SyntheticSource
  TESTS synthetic_test.cpp)
