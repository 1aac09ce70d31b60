// The hdf5 sink read back with libhdf5: the same arrays as the npy sink of the same run, the band
// edges and every resolved parameter as attributes, and no file at all when the run fails.
#include <filesystem>
#include <cmath>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>

#include "engine/api/errors.hpp"
#include "engine/io/npy.hpp"
#include "engine/api/pipeline.hpp"
#include "stages/builtin.hpp"
#include "stages/io/hdf5/hdf5_attributes.hpp"
#include "stages/io/hdf5/hdf5_handle.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow::stages {
namespace {

namespace fs = std::filesystem;
using hdf5::Id;

std::vector<float> read_dataset(hid_t file, const std::string& name, Shape& shape) {
  const Id dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  EXPECT_TRUE(dataset) << name;
  const Id space(H5Dget_space(dataset.get()), H5Sclose);
  std::vector<hsize_t> dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space.get())));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  shape.assign(dims.begin(), dims.end());
  const Id type(H5Dget_type(dataset.get()), H5Tclose);
  EXPECT_TRUE(H5Tequal(type.get(), H5T_IEEE_F32LE) > 0) << name << " is not float32";
  std::vector<float> values(static_cast<std::size_t>(element_count(shape)));
  EXPECT_GE(H5Dread(dataset.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  return values;
}

// Reads an attribute of any shape as doubles.
std::vector<double> read_numbers(hid_t object, const std::string& name) {
  const Id attribute(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose);
  EXPECT_TRUE(attribute) << name;
  const Id space(H5Aget_space(attribute.get()), H5Sclose);
  std::vector<double> values(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
  EXPECT_GE(H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, values.data()), 0);
  return values;
}

std::vector<double> flat(const json& nested) {
  std::vector<double> out;
  for (const auto& row : nested)
    for (const auto& v : row) out.push_back(v.get<double>());
  return out;
}

Pipeline pac_chain(const fs::path& dir) {
  Pipeline p(builtin_registry());
  p.source("synthetic", {{"fs", 256}, {"epochs", 4}, {"channels", 3}, {"n_times", 512}, {"seed", 4}})
      .stage("bandpass", {{"pha", "4:10:3"}, {"amp", "60:90:2"}})
      .stage("hilbert")
      .stage("mi")
      .stage("surrogates", {{"n", 20}, {"seed", 9}, {"trial_block", 2}})
      .sink("npy", {{"dir", (dir / "npy").string()}})
      .sink("hdf5", {{"path", (dir / "h5" / "result.h5").string()}});
  return p;
}

// Every array the npy sink in `npy_dir` wrote is in `file` bit for bit, with its shape, doc and
// leading dims' names; returns the npy sink's result.json.
json expect_the_npy_sinks_arrays(hid_t file, const fs::path& npy_dir) {
  std::ifstream result_json(npy_dir / "result.json");
  const json npy_result = json::parse(result_json);
  EXPECT_FALSE(npy_result["outputs"].empty());
  for (const auto& [file_name, entry] : npy_result["outputs"].items()) {
    const std::string name = file_name.substr(0, file_name.size() - 4);
    SCOPED_TRACE(name);
    if (entry["dtype"] == "float64") {  // a coordinate (erpac's times): float64 [n] in both, the same values
      const Id dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
      EXPECT_TRUE(dataset);
      const std::vector<double> npy = testing::load_doubles(npy_dir / file_name);
      std::vector<double> h5(npy.size());
      EXPECT_GE(H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, h5.data()), 0);
      EXPECT_EQ(h5, npy);
      EXPECT_EQ(hdf5::read_string_attribute(dataset.get(), "unit", name).value().at(0), entry["unit"]);
      continue;
    }
    Shape h5_shape, npy_shape;
    const auto h5 = read_dataset(file, name, h5_shape);
    const auto npy = testing::load_floats(npy_dir / file_name, &npy_shape);
    EXPECT_EQ(h5_shape, npy_shape);
    EXPECT_EQ(h5_shape, entry["shape"].get<Shape>());
    EXPECT_EQ(h5.size(), npy.size());
    std::size_t same = 0;  // elements equal (or both NaN) before the first difference
    while (same < std::min(h5.size(), npy.size()) &&
           (h5[same] == npy[same] || (std::isnan(h5[same]) && std::isnan(npy[same]))))
      ++same;
    EXPECT_EQ(same, npy.size()) << "first differing element";
    const Id dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
    EXPECT_EQ(hdf5::read_string_attribute(dataset.get(), "doc", name).value().at(0), entry["doc"]);
    EXPECT_EQ(hdf5::read_string_attribute(dataset.get(), "leading_dims", name).value(),
              entry["leading_dims"].get<std::vector<std::string>>());
  }
  return npy_result;
}

TEST(Hdf5Sink, WritesTheNpySinksArraysWithBandEdgesAndParametersAsAttributes) {
  testing::ScratchDir dir("h5_sink");
  RunOptions options;
  options.batch_size = 2;  // rounded to the trial-level test's blocks: 2 epochs of 3 channels
  const json report = pac_chain(dir.path()).run(options).to_json();
  const hdf5::QuietErrors quiet;
  const auto path = dir / "h5" / "result.h5";
  const Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  ASSERT_TRUE(file);
  const json npy_result = expect_the_npy_sinks_arrays(file.get(), dir / "npy");
  // Per series [epochs][channels]…; the trial-level test's summaries per channel.
  for (const auto& [file_name, entry] : npy_result["outputs"].items())
    EXPECT_EQ(entry["shape"], (file_name.starts_with("trial_") ? Shape{3, 3, 2} : Shape{4, 3, 3, 2})) << file_name;
  EXPECT_TRUE(npy_result["outputs"].contains("trial_pvalues.npy"));
  EXPECT_EQ(read_numbers(file.get(), "pha_bands_hz"), flat(report["pha_bands_hz"]));
  EXPECT_EQ(read_numbers(file.get(), "amp_bands_hz"), flat(report["amp_bands_hz"]));
  EXPECT_EQ(read_numbers(file.get(), "mi_bins"), (std::vector<double>{18}));

  // Every element's resolved parameters, each as an attribute of /pipeline/NN_kind_name.
  const json& elements = report["pipeline"];
  ASSERT_EQ(elements.size(), 7u);
  const Id surrogates(H5Gopen2(file.get(), "/pipeline/04_stage_surrogates", H5P_DEFAULT), H5Gclose);
  ASSERT_TRUE(surrogates);
  EXPECT_EQ(read_numbers(surrogates.get(), "n"), (std::vector<double>{20}));
  EXPECT_EQ(read_numbers(surrogates.get(), "seed"), (std::vector<double>{9}));
  const auto shifts = read_numbers(surrogates.get(), "shifts");
  EXPECT_EQ(shifts, elements[4]["params"]["shifts"].get<std::vector<double>>());
  const Id bandpass(H5Gopen2(file.get(), "/pipeline/01_stage_bandpass", H5P_DEFAULT), H5Gclose);
  EXPECT_EQ(hdf5::read_string_attribute(bandpass.get(), "pha", "bandpass").value().at(0), "4:10:3");
  const Id source(H5Gopen2(file.get(), "/pipeline/00_source_synthetic", H5P_DEFAULT), H5Gclose);
  EXPECT_EQ(read_numbers(source.get(), "n_times"), (std::vector<double>{512}));
  const Id input(H5Gopen2(file.get(), "/input", H5P_DEFAULT), H5Gclose);
  EXPECT_EQ(read_numbers(input.get(), "sample_rate_hz"), (std::vector<double>{256}));

  // The whole report, as result.json holds it (less the npy sink's list of its own files), with the
  // run's files named from each report's own folder.
  json from_h5 = json::parse(hdf5::read_string_attribute(file.get(), "result_json", "root").value().at(0));
  json expected = npy_result;
  expected.erase("outputs");
  ASSERT_EQ(from_h5["files"].size(), expected["files"].size());
  EXPECT_EQ(from_h5["files"].back()["path"], "result.h5");
  EXPECT_EQ(expected["files"].back()["path"], (dir / "h5" / "result.h5").string());
  EXPECT_EQ(from_h5["files"][0]["path"], (dir / "npy" / "pac.npy").string());
  EXPECT_EQ(expected["files"][0]["path"], "pac.npy");
  from_h5.erase("files");
  expected.erase("files");
  EXPECT_EQ(from_h5, expected);
}

// Results whose rows are not one per series keep their own leading dims, as in the npy sink:
// cross-channel PAC [E][pair][...], erpac [C][...], and PAC per segment [E][C][S][...]; batches
// that cut epochs and pairs anywhere land where the npy sink puts them.
TEST(Hdf5Sink, ResultsWithTheirOwnRowsOrSegmentsMatchTheNpySink) {
  testing::ScratchDir dir("h5_sink_rows");
  const auto segmented = dir / "segmented.npy";
  {
    NpyWriter w(segmented, {2, 3, 2, 512});
    std::vector<float> v(2 * 3 * 2 * 512);
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<float>(std::sin(0.09 * static_cast<double>(i % 512)) * (1.0 + 0.5 * std::sin(0.7 * static_cast<double>(i))));
    w.append(v.data(), static_cast<std::int64_t>(v.size()));
    w.commit();
  }
  const json synthetic = {{"fs", 256}, {"epochs", 4}, {"channels", 3}, {"n_times", 512}, {"seed", 4}};
  const json bands = {{"pha", "4:10:3"}, {"amp", "60:90:2"}};
  struct Case {
    const char* name;
    std::function<void(Pipeline&)> add_source_and_stages;
  };
  const std::vector<Case> cases = {
      {"pairs", [&](Pipeline& p) {
         p.source("synthetic", synthetic).stage("bandpass", bands).stage("hilbert");
         p.stage("mi", {{"pairs", json::array({json::array({0, 1}), json::array({2, 0})})}})
             .stage("surrogates", {{"n", 10}, {"seed", 9}});
       }},
      {"erpac", [&](Pipeline& p) { p.source("synthetic", synthetic).stage("bandpass", bands).stage("hilbert").stage("erpac"); }},
      {"segments", [&](Pipeline& p) {
         p.source("npy", {{"path", segmented.string()}, {"fs", 256}}).stage("bandpass", bands).stage("hilbert").stage("mi");
       }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Pipeline p(builtin_registry());
    c.add_source_and_stages(p);
    p.sink("npy", {{"dir", (dir / c.name / "npy").string()}}).sink("hdf5", {{"path", (dir / c.name / "result.h5").string()}});
    RunOptions options;
    options.batch_size = 5;  // not a multiple of the channels or pairs (stages that need whole epochs round it up)
    ASSERT_NO_THROW(p.run(options));
    const hdf5::QuietErrors quiet;
    const Id file(H5Fopen((dir / c.name / "result.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    ASSERT_TRUE(file);
    expect_the_npy_sinks_arrays(file.get(), dir / c.name / "npy");
  }
}

TEST(Hdf5Sink, LeavesNoFileWhenTheRunFails) {
  testing::ScratchDir dir("h5_sink_fail");
  const auto input = dir / "x.npy";
  {
    NpyWriter w(input, {4, 2, 256});
    std::vector<float> v(4 * 2 * 256, 0.25f);
    v[3 * 512 + 7] = NAN;  // the last batch fails
    w.append(v.data(), static_cast<std::int64_t>(v.size()));
    w.commit();
  }
  Pipeline p(builtin_registry());
  p.source("npy", {{"path", input.string()}, {"fs", 128}})
      .stage("bandpass", {{"pha", "4:8:2"}, {"amp", "40:60:2"}})
      .stage("hilbert")
      .stage("mi")
      .sink("hdf5", {{"path", (dir / "out" / "result.h5").string()}});
  RunOptions options;
  options.batch_size = 2;
  EXPECT_ANY_THROW(p.run(options));
  EXPECT_FALSE(fs::exists(dir / "out" / "result.h5"));
  if (fs::exists(dir / "out"))
    for (const auto& e : fs::directory_iterator(dir / "out")) ADD_FAILURE() << "left behind: " << e.path();
}

}  // namespace
}  // namespace pacflow::stages
