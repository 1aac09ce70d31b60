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
  p.choice(&ManifestSource::group_, "group", {{"auto", true}, {"none", false}}, "auto",
           "the group-level test across recordings (subjects) of their trial_rank_z, by sign flips (docs/methods.md): "
           "auto (when the recordings have trial_rank_z of one shape, into the stacked file and the report) or none");
  p.add(&ManifestSource::group_flips_, "group_n", 10000,
        "sign flips of the group test: all 2^subjects when not more than this, else this many drawn")
      .unit("permutations")
      .range(1, 10000000);
  p.add(&ManifestSource::group_seed_, "group_seed", 42, "key of the group test's counter-based sign flips")
      .at_least(0);
  p.add(&ManifestSource::group_cluster_p_, "group_cluster_p", 0.05,
        "the group test's cluster-forming threshold, as a p-value of Student's t with subjects - 1 degrees of "
        "freedom (two-sided tests halve it on each side)")
      .range(1e-6, 0.5);
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
