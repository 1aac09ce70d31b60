# The manifest source: a dataset of recordings, run once per recording by pipelines/dataset_run.
pacflow_stage_folder(ORDER 45
  SOURCES manifest_source.cpp
  ELEMENTS manifest_source.hpp:ManifestSource)
