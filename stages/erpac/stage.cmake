pacflow_stage_folder(ORDER 67
  SOURCES erpac_stage.cpp multiple_comparisons.cpp
  ELEMENTS erpac_stage.hpp:ErpacStage
  TESTS erpac_test.cpp)
