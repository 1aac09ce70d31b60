# The bids source: a BIDS dataset of recordings, found by pipelines/bids and run once per recording by
# pipelines/dataset_run; the recording sources' events_file= read by edf and brainvision.
pacflow_stage_folder(ORDER 46
  SOURCES bids_source.cpp bids_labels.cpp
  ELEMENTS bids_source.hpp:BidsSource
  TESTS bids_events_file_test.cpp)
