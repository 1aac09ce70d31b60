pacflow_stage_folder(ORDER 61
  SOURCES reref_stage.cpp
  ELEMENTS reref_stage.hpp:RerefStage
  TESTS reref_test.cpp)
