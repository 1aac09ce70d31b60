# Helpers the file sources and sinks share: checksums, NaN scans, output paths, padding, epoch overlap,
# the array sources' conditions; and the recording sources' work (edf, brainvision): channel
# selection, epochs, rejection, the source over a RecordingFile; BIDS tables (events.tsv); the dataset
# sources' shared parameters (manifest, bids); the axes of stored arrays (layout=); results as arrays.
pacflow_stage_folder(SOURCES array_conditions.cpp epoch_overlap.cpp file_sha256.cpp finite_samples.cpp output_paths.cpp padding.cpp
    channel_selection.cpp epochs.cpp epoch_rejection.cpp recording_source.cpp recording_epochs.cpp recording_rejection.cpp
    tsv_table.cpp events_tsv.cpp dataset_source.cpp array_layout.cpp
  TESTS array_conditions_test.cpp events_tsv_test.cpp)
