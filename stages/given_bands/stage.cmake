pacflow_stage_folder(ORDER 63
  SOURCES given_bands_stage.cpp
  ELEMENTS given_bands_stage.hpp:GivenBandsStage
  TESTS given_bands_test.cpp)
