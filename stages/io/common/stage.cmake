# Helpers the file sources and sinks share: checksums, NaN scans, output paths, padding.
pacflow_stage_folder(SOURCES file_sha256.cpp finite_samples.cpp output_paths.cpp padding.cpp)
