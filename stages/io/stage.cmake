# Tests across the file sources and sinks.
pacflow_stage_folder(TESTS io_test.cpp)
