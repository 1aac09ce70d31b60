#pragma once
// Source `manifest`: a dataset, one recording per row of a tab-separated file (path=subjects.tsv),
// each read by a file source (npy, edf, hdf5) with the row's parameters. The rest of the pipeline
// runs once per recording: pipelines/dataset_run.hpp runs it (pipeline_cli run and validate,
// pacflow.run), writing each recording's results into a folder of its own and all of them stacked in
// one HDF5 file (stacked=). The table's format: pipelines/manifest_table.hpp, and docs/cluster.md
// ("Datasets").
//
// This element declares the parameters, so that `pipeline_cli stages`, validation and the .pipe
// format know them; it reads no samples itself: a pipeline that starts with it run as one stream
// (Pipeline::run) is refused, naming the dataset run.
#include <optional>
#include <string>

#include "engine/api/param_binding.hpp"
#include "engine/api/registry.hpp"

namespace pacflow::stages {

class ManifestSource final : public Source {
 public:
  StreamInfo open(const std::stop_token& stop) override;
  void read(std::int64_t first, std::int64_t count, float* dst) override;

  static ElementInfo info();
  static void declare(ParamBinder<ManifestSource>& p);

 private:
  std::filesystem::path path_;
  std::optional<std::string> reader_;
  std::optional<std::string> stacked_;
  // The group-level test (pipelines/group/), read by the dataset run from the element's parameters.
  bool group_ = true;
  std::int64_t group_flips_ = 10000;
  std::int64_t group_seed_ = 42;
  double group_cluster_p_ = 0.05;
};

}  // namespace pacflow::stages
