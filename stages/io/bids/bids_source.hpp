#pragma once
// Source `bids`: a BIDS dataset (root=DIR task=NAME datatype=eeg|ieeg) as a dataset, one recording
// per EEG or iEEG file of the task (EDF/BDF, BrainVision), each read by the edf or brainvision
// source with the element's reader parameters, its channels.tsv's bad channels left out and, with
// events=, its epochs around the events of its events.tsv. pipelines/bids/bids_dataset.hpp finds the
// recordings; pipelines/dataset_run.hpp runs them (docs/cluster.md, "BIDS").
//
// Like the manifest, this element declares parameters only (stages/io/common/dataset_source.hpp).
// The recording sources' parameters that make sense dataset-wide (channels, epoch, events, …) are
// theirs, declared in the words of a BIDS dataset (RecordingSource::recording_params).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "stages/io/bids/bids_labels.hpp"
#include "stages/io/common/dataset_source.hpp"

namespace pacflow::stages {

class BidsSource final : public DatasetSource {
 public:
  static ElementInfo info();
  static void declare(ParamBinder<BidsSource>& p);

 protected:
  std::string dataset_input() const override { return root_.string(); }
  std::string dataset_kind() const override { return "bids"; }

 private:
  std::filesystem::path root_;
  std::string task_;
  std::string datatype_ = "eeg";
  // Read here so that a malformed one is refused with the other parameters; the dataset run reads
  // them again from the parameters (pipelines/bids).
  std::optional<std::vector<EntityLabel>> subjects_, sessions_, runs_;
};

}  // namespace pacflow::stages
