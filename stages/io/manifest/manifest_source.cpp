#include "stages/io/manifest/manifest_source.hpp"

namespace pacflow::stages {

void ManifestSource::declare(ParamBinder<ManifestSource>& p) {
  p.required(&ManifestSource::path_, "path",
             "the dataset's table: tab-separated, a header naming the columns id (the recording's name, its "
             "results' folder), path (its file, relative to the table) and any parameter of its source "
             "(fs, events, channels, …); one recording per row")
      .as(ParamType::InputFile);
  p.optional(&ManifestSource::reader_, "reader",
             "the source that reads every recording (npy, edf, brainvision, hdf5), unless a row's reader column names "
             "one; default: by the file's extension (.npy/.npz npy, .edf/.bdf edf, .vhdr brainvision, .h5/.hdf5 hdf5)");
  declare_dataset(p);
}

ElementInfo ManifestSource::info() {
  return element_info<ManifestSource>(
      "manifest", "a dataset: one recording per row of a table (path=subjects.tsv), each with its own parameters; "
                  "the pipeline runs once per recording (results per recording, and stacked)");
}

}  // namespace pacflow::stages
