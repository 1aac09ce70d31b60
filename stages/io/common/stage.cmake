# Helpers the file sources and sinks share: checksums, NaN scans, output paths, padding, epoch overlap.
pacflow_stage_folder(SOURCES epoch_overlap.cpp file_sha256.cpp finite_samples.cpp output_paths.cpp padding.cpp)
