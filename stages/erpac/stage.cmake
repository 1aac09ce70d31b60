pacflow_stage_folder(ORDER 67
  SOURCES erpac_stage.cpp
  ELEMENTS erpac_stage.hpp:ErpacStage
  TESTS erpac_test.cpp)
