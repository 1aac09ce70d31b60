#pragma once
// Source `manifest`: a dataset, one recording per row of a tab-separated file (path=subjects.tsv),
// each read by a file source (npy, edf, brainvision, hdf5) with the row's parameters. The rest of
// the pipeline runs once per recording: pipelines/dataset_run.hpp runs it (pipeline_cli run and
// validate, pacflow.run), writing each recording's results into a folder of its own and all of them
// stacked in one HDF5 file (stacked=). The table's format: pipelines/manifest_table.hpp, and
// docs/cluster.md ("Datasets").
//
// This element declares the parameters (stages/io/common/dataset_source.hpp); it reads no samples
// itself: a pipeline that starts with it run as one stream (Pipeline::run) is refused, naming the
// dataset run.
#include <filesystem>
#include <optional>
#include <string>

#include "stages/io/common/dataset_source.hpp"

namespace pacflow::stages {

class ManifestSource final : public DatasetSource {
 public:
  static ElementInfo info();
  static void declare(ParamBinder<ManifestSource>& p);

 protected:
  std::string dataset_input() const override { return path_.string(); }
  std::string dataset_kind() const override { return "manifest"; }

 private:
  std::filesystem::path path_;
  std::optional<std::string> reader_;
};

}  // namespace pacflow::stages
