pacflow_stage_folder(ORDER 62
  SOURCES evoked_stage.cpp
  ELEMENTS evoked_stage.hpp:EvokedStage
  TESTS evoked_test.cpp)
