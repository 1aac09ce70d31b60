pacflow_stage_folder(ORDER 67
  SOURCES erpac_stage.cpp erpac_gc.cpp
  ELEMENTS erpac_stage.hpp:ErpacStage
  TESTS erpac_test.cpp)
