pacflow_stage_folder(ORDER 20
  SOURCES npy_source.cpp npy_sink.cpp npz_archive.cpp
  ELEMENTS npy_source.hpp:NpySource npy_sink.hpp:NpySink
  TESTS npy_layout_test.cpp)
