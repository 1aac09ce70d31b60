pacflow_stage_folder(ORDER 31
  SOURCES brainvision_text.cpp brainvision_header.cpp brainvision_markers.cpp brainvision_file.cpp brainvision_source.cpp
  ELEMENTS brainvision_source.hpp:BrainVisionSource
  TESTS brainvision_source_test.cpp brainvision_errors_test.cpp)
