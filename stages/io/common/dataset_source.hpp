#pragma once
// What the dataset sources (`manifest`, `bids`) share. A dataset source names many recordings; the
// rest of the pipeline runs once per recording (pipelines/dataset_run.hpp: pipeline_cli run and
// validate, pacflow.run), each recording's results in a folder of its own and all of them stacked
// in one HDF5 file. Such an element declares parameters only, so that `pipeline_cli stages`,
// validation and the .pipe format know them: the dataset run reads them from the pipeline's
// elements. Run as one stream (Pipeline::run) it is refused, naming the dataset run.
#include <cstdint>
#include <optional>
#include <string>

#include "engine/api/param_binding.hpp"
#include "engine/api/registry.hpp"

namespace pacflow::stages {

class DatasetSource : public Source {
 public:
  StreamInfo open(const std::stop_token& stop) override;
  void read(std::int64_t first, std::int64_t count, float* dst) override;

 protected:
  // The stacked file and the group-level test: the parameters every dataset source takes.
  template <class Element>
  static void declare_dataset(ParamBinder<Element>& p);
  // What the dataset is read from, for the refusal's message: the table, the BIDS folder.
  virtual std::string dataset_input() const = 0;
  // The element's name: "manifest".
  virtual std::string dataset_kind() const = 0;

 private:
  std::optional<std::string> stacked_;
  // The group-level test (pipelines/group/), read by the dataset run from the element's parameters.
  bool group_ = true;
  std::int64_t group_flips_ = 10000;
  std::int64_t group_seed_ = 42;
  double group_cluster_p_ = 0.05;
};

template <class Element>
void DatasetSource::declare_dataset(ParamBinder<Element>& p) {
  p.optional(&DatasetSource::stacked_, "stacked",
             "the HDF5 file with every recording's results stacked along a first dimension, recordings; default "
             "recordings.h5 in the folder of the first sink's outputs; none: not written");
  p.choice(&DatasetSource::group_, "group", {{"auto", true}, {"none", false}}, "auto",
           "the group-level test across recordings (subjects) of their trial_rank_z, by sign flips (docs/methods.md): "
           "auto (when the recordings have trial_rank_z of one shape, into the stacked file and the report) or none");
  p.add(&DatasetSource::group_flips_, "group_n", 10000,
        "sign flips of the group test: all 2^subjects when not more than this, else this many drawn")
      .unit("permutations")
      .range(1, 10000000);
  p.add(&DatasetSource::group_seed_, "group_seed", 42, "key of the group test's counter-based sign flips").at_least(0);
  p.add(&DatasetSource::group_cluster_p_, "group_cluster_p", 0.05,
        "the group test's cluster-forming threshold, as a p-value of Student's t with subjects - 1 degrees of "
        "freedom (two-sided tests halve it on each side)")
      .range(1e-6, 0.5);
}

}  // namespace pacflow::stages
