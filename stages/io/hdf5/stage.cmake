pacflow_stage_folder(ORDER 40
  SOURCES hdf5_handle.cpp hdf5_attributes.cpp hdf5_datasets.cpp dimension_scales.cpp hdf5_source.cpp hdf5_sink.cpp stacked_results.cpp
  ELEMENTS hdf5_source.hpp:Hdf5Source hdf5_sink.hpp:Hdf5Sink
  TESTS hdf5_source_test.cpp hdf5_sink_test.cpp)
