#pragma once
// Sink `hdf5`: every result tensor as a float32 dataset /<name> in one HDF5 file (the npy sink's
// arrays: [E][C][...], or the result's own leading dims, e.g. [E][pair][...] or erpac's [C][...]), with
// the run's report as attributes, every coordinate (erpac's times) as a float64 dataset (stage facts such as band edges on the root, the input under
// /input, every element's resolved parameters under /pipeline/NN_kind_name, and the complete
// result.json text as /@result_json). Written to a temporary file beside PATH and moved into place,
// with every other sink's files, only when the run succeeds. Layout: docs/formats.md.
#include <filesystem>
#include <vector>

#include "engine/api/param_binding.hpp"
#include "stages/io/common/output_paths.hpp"
#include "stages/io/hdf5/hdf5_handle.hpp"

namespace pacflow::stages {

class Hdf5Sink final : public Sink {
 public:
  ~Hdf5Sink() override;
  void plan(const PlanContext& ctx) override;
  std::vector<std::filesystem::path> output_files() const override { return {path_}; }
  std::string describe_output(const std::filesystem::path& /*file*/) const override {
    return "every result and coordinate as a dataset, the run's report as attributes";
  }
  void consume(const Batch& batch) override;
  void consume_summary(const Batch& summary) override;
  void finish(const json& report, OutputSet& outputs) override;
  void abort() noexcept override;
  std::string why_not_checkpointable() const override {
    return "an HDF5 file cut short by a kill cannot be safely reopened; use sink npy with --checkpoint";
  }

  static ElementInfo info();
  static void declare(ParamBinder<Hdf5Sink>& p);

 private:
  struct Output {
    TensorDecl decl;
    ResultLeading leading;  // the dataset's leading dims (rows), then decl.per_series
    hdf5::Id dataset;
  };
  void create_file();
  // The report as attributes, then the file closed (complete under its temporary name).
  void write_report(const json& report);
  void write_rows(Output& out, const float* values, std::int64_t first_row, std::int64_t rows);

  std::filesystem::path path_ = "out/pac/result.h5";
  std::filesystem::path temp_;
  std::vector<Output> outputs_;
  std::vector<Coordinate> coordinates_;  // float64 datasets /<name>
  hdf5::Id file_;
};

}  // namespace pacflow::stages
