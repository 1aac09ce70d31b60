#pragma once
// A dataset's results stacked in one HDF5 file (pipelines/dataset_run.hpp): every result array of
// the recordings' runs as a float32 dataset /<name> of shape [recordings][the array's own shape],
// its axes named by the attribute `dims` ("recordings" first) and described by `doc`; every
// coordinate as a float64 dataset, as the hdf5 sink writes them; the recordings' ids and what the
// caller adds (the manifest, the bands) as attributes of the root. Recordings are written one at a
// time, in any order, so no more than one recording's results are held; the file is complete under
// a temporary name until finish() hands it to an OutputSet.
//
// Recordings of a study differ in their numbers of epochs (issue 38): an array whose first axis is
// `epochs` is kept aside (in a scratch file beside the temporary one) and, at finish(), stacked when
// every recording has as many epochs, else written per recording: a group /<name> holding a dataset
// /<name>/<id> of each recording's own shape (its `dims` without "recordings"), the group's attribute
// `ragged` saying why, and the root's `ragged_arrays` naming them. Arrays of every other shape (per
// channel, condition and cell) must agree and are stacked as they come.
//
// Every array's labelled axes are HDF5 dimension scales (stages/io/hdf5/dimension_scales.hpp):
// /recordings (the ids), /channels and /conditions (their names, from the attributes channel_names
// and condition_names), /phase_bands and /amplitude_bands (the centres in Hz, from pha_centres_hz and
// amp_centres_hz) and the ERPAC times (the coordinate erpac_times), attached where `dims` names them.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/io/output_set.hpp"
#include "stages/io/common/result_arrays.hpp"
#include "stages/io/hdf5/hdf5_handle.hpp"

namespace pacflow::stages {

class StackedResults {
 public:
  // The file for `ids.size()` recordings whose arrays all have the names, shapes and dims of
  // `first` (one recording's results).
  StackedResults(std::filesystem::path path, std::vector<std::string> ids, const ResultArrays& first);
  ~StackedResults();
  StackedResults(const StackedResults&) = delete;
  StackedResults& operator=(const StackedResults&) = delete;

  // Recording `index`'s arrays. Throws InputError naming the recording and the array when they are
  // not those of the first recording (other channels, conditions or bands; epochs may differ).
  void add(std::size_t index, const ResultArrays& results);
  // A result of the whole dataset (a group test's, pipelines/group/): a float32 dataset /`name` of
  // `shape`, its axes named `dims`, described by `doc`; written now.
  void add_summary(const std::string& name, const std::vector<std::size_t>& shape, const std::vector<std::string>& dims,
                   const std::string& doc, const std::vector<double>& values);
  // Every recording added: writes `attributes` on the root, closes the file and hands it to `outputs`.
  void finish(const nlohmann::json& attributes, OutputSet& outputs);

 private:
  struct Stack {
    std::string name;
    Shape shape;  // the first recording's
    std::vector<std::string> dims;  // without "recordings"
    std::string doc;
    hdf5::Id dataset;                 // stacked as they come (not per_epoch)
    bool per_epoch = false;           // first axis "epochs": kept aside until finish()
    std::vector<std::int64_t> epochs;  // per recording, when per_epoch
  };
  void add_stacked(Stack& stack, std::size_t index, const ResultArray& array);
  void finish_per_epoch(Stack& stack, std::vector<std::string>& ragged);
  void attach_scales(const nlohmann::json& attributes, const std::vector<std::string>& ragged);

  std::filesystem::path path_, temp_, scratch_path_;
  std::vector<std::string> ids_;
  std::vector<Coordinate> coordinates_;
  std::vector<Stack> stacks_;
  std::vector<std::string> summaries_;  // add_summary's datasets
  std::vector<bool> added_;
  hdf5::Id file_, scratch_;
};

}  // namespace pacflow::stages
