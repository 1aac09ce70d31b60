pacflow_stage_folder(ORDER 60
  SOURCES notch_filter.cpp notch_stage.cpp
  ELEMENTS notch_stage.hpp:NotchStage
  TESTS notch_test.cpp)
