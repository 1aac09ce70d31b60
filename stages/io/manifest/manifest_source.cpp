#include "stages/io/manifest/manifest_source.hpp"

#include <fmt/format.h>

namespace pacflow::stages {

void ManifestSource::declare(ParamBinder<ManifestSource>& p) {
  p.required(&ManifestSource::path_, "path",
             "the dataset's table: tab-separated, a header naming the columns id (the recording's name, its "
             "results' folder), path (its file, relative to the table) and any parameter of its source "
             "(fs, events, channels, …); one recording per row")
      .as(ParamType::InputFile);
  p.optional(&ManifestSource::reader_, "reader",
             "the source that reads every recording (npy, edf, hdf5), unless a row's reader column names one; "
             "default: by the file's extension (.npy/.npz npy, .edf/.bdf edf, .h5/.hdf5 hdf5)");
  p.optional(&ManifestSource::stacked_, "stacked",
             "the HDF5 file with every recording's results stacked along a first dimension, recordings; default "
             "recordings.h5 in the folder of the first sink's outputs; none: not written");
}

ElementInfo ManifestSource::info() {
  return element_info<ManifestSource>(
      "manifest", "a dataset: one recording per row of a table (path=subjects.tsv), each with its own parameters; "
                  "the pipeline runs once per recording (results per recording, and stacked)");
}

StreamInfo ManifestSource::open(const std::stop_token&) {
  throw InputError(fmt::format("{}: a manifest runs the pipeline once per recording, as a dataset "
                               "(pipeline_cli run x.pipe, pacflow.run; in C++, run_dataset in "
                               "pipelines/dataset_run.hpp), not as one stream",
                               path_.string()));
}

void ManifestSource::read(std::int64_t, std::int64_t, float*) {
  throw std::logic_error("the manifest source reads no samples");
}

}  // namespace pacflow::stages
