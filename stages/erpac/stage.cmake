pacflow_stage_folder(ORDER 67
  SOURCES erpac_stage.cpp erpac_gc.cpp erpac_gc_sums.cpp
  ELEMENTS erpac_stage.hpp:ErpacStage
  TESTS erpac_test.cpp erpac_gc_sums_test.cpp)
