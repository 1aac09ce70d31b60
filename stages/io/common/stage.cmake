# Helpers the file sources and sinks share: checksums, NaN scans, output paths, padding, epoch overlap,
# the array sources' conditions.
pacflow_stage_folder(SOURCES array_conditions.cpp epoch_overlap.cpp file_sha256.cpp finite_samples.cpp output_paths.cpp padding.cpp
  TESTS array_conditions_test.cpp)
