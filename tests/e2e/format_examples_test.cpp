// The example pipelines of pipelines/ (one per input format) run end to end through pipeline_cli on
// the recordings make_example_inputs writes, and hostile versions of those recordings stop the CLI
// with exit code 2 and a message naming the file.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>

#include "stages/io/hdf5/hdf5_attributes.hpp"
#include "stages/io/hdf5/hdf5_handle.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;
using hdf5::Id;
using testing::run_cli;

// An example pipeline as ExampleInputs' folder holds it (its paths are relative to its folder).
std::string format_example(const std::string& name) { return "pipelines/" + name + "_example.pipe"; }

// A scratch directory laid out like the repository for the examples: pipelines/ and
// out/example_inputs/.
struct ExampleInputs {
  testing::ScratchDir dir{"format_examples"};
  ExampleInputs() {
    testing::copy_shipped_pipelines(dir.path());
    const auto made = testing::run_program(PACFLOW_MAKE_EXAMPLE_INPUTS, "out/example_inputs", dir.path());
    EXPECT_EQ(made.exit_code, 0) << made.err;
  }
  fs::path input(const std::string& name) const { return dir / "out" / "example_inputs" / name; }
};

// Runs an example with fewer surrogates (the examples use 200; the checks need no more).
testing::CliResult run_example(const ExampleInputs& inputs, const std::string& name) {
  return run_cli("run -q --set surrogates.n=40 " + format_example(name), inputs.dir.path());
}

Shape dataset_shape(hid_t file, const std::string& name) {
  const Id dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  const Id space(H5Dget_space(dataset.get()), H5Sclose);
  std::vector<hsize_t> dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space.get())));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return {dims.begin(), dims.end()};
}

// Largest epoch-mean z-score of one channel over all cells, from a [E][C][P][A] array.
double peak_mean_z(const std::vector<double>& z, const Shape& shape, std::int64_t channel) {
  const std::int64_t cells = shape[2] * shape[3];
  double peak = -1e300;
  for (std::int64_t k = 0; k < cells; ++k) {
    double sum = 0;
    for (std::int64_t e = 0; e < shape[0]; ++e) sum += z[static_cast<std::size_t>((e * shape[1] + channel) * cells + k)];
    peak = std::max(peak, sum / static_cast<double>(shape[0]));
  }
  return peak;
}

TEST(FormatExamples, EdfExampleRunsWithLabelledChannelsIntoAnHdf5Result) {
  const ExampleInputs inputs;
  const auto r = run_example(inputs, "edf");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = inputs.dir / "out" / "edf_example";
  EXPECT_TRUE(fs::exists(out / "comodulogram.png"));
  EXPECT_TRUE(fs::exists(out / "comodulogram_channels.png"));
  const hdf5::QuietErrors quiet;
  const Id file(H5Fopen((out / "result.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  ASSERT_TRUE(file);
  // 60 s in 4 s windows every 2 s: 29 epochs; 6 channels; 5 x 5 bands.
  EXPECT_EQ(dataset_shape(file.get(), "/pac_z"), (Shape{29, 6, 5, 5}));
  // Windows that overlap are not permuted together: the epoch-permutation test is made on the 15
  // that do not overlap (every second), and the run says so (issue 36).
  EXPECT_NE(r.err.find("trials: the trial-level test uses the 15 of 29 epochs that do not overlap in time"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(dataset_shape(file.get(), "/trial_pvalues"), (Shape{6, 5, 5}));
  const Id input(H5Gopen2(file.get(), "/input", H5P_DEFAULT), H5Gclose);
  EXPECT_EQ(hdf5::read_string_attribute(input.get(), "channel_labels", "input").value(),
            (std::vector<std::string>{"Fz", "Cz", "Pz", "Oz", "C3", "C4"}));
  EXPECT_EQ(hdf5::read_string_attribute(input.get(), "format", "input").value().at(0), "EDF+");
}

TEST(FormatExamples, BdfExampleCutsEpochsAroundEventsAndFindsTheCoupledChannels) {
  const ExampleInputs inputs;
  const auto r = run_example(inputs, "bdf");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("1 of 12 \"stim\" events skipped"), std::string::npos) << r.err;
  const auto out = inputs.dir / "out" / "bdf_example";
  std::ifstream in(out / "result.json");
  const json result = json::parse(in);
  EXPECT_EQ(result["input"]["format"], "BDF+");
  EXPECT_EQ(result["input"]["channel_labels"], json({"Fz", "Cz", "Pz", "Oz", "C3"}));
  EXPECT_EQ(result["input"]["shape"], json({11, 5, 1024}));
  EXPECT_TRUE(fs::exists(out / "comodulogram_channels.png"));
  // make_example_inputs couples Fz, Cz and C3 (6 -> 80 Hz); Pz and Oz carry none.
  Shape shape;
  const auto z = testing::load_doubles(out / "pac_z.npy", &shape);
  for (std::int64_t c : {0, 1, 4}) EXPECT_GT(peak_mean_z(z, shape, c), 4.0) << "channel " << c;
  for (std::int64_t c : {2, 3}) EXPECT_LT(peak_mean_z(z, shape, c), 3.0) << "channel " << c;
}

// Short windows around events: each epoch filtered alone cuts the slow phase filters short (a
// warning names them); pad=3s filters each with three seconds of the recording on either side and
// crops after the hilbert stage, so every filter keeps its order (the slowest, [1.5, 2.5] Hz at
// 256 Hz, is 512: 3 orders need 1537 samples, 256 + 2 x 768 are 1792) and the results their shape.
TEST(FormatExamples, PaddedShortEventWindowsKeepEveryFilterAndTheirShape) {
  const ExampleInputs inputs;
  const std::string window = " --set source.window=-0.5s:0.5s --set bandpass.pha=2:20:10 --set surrogates.n=10 ";
  const auto bare = run_cli("run -q" + window + format_example("bdf"), inputs.dir.path());
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  EXPECT_NE(bare.err.find("shorter than 3 filter orders of"), std::string::npos) << bare.err;
  const auto padded = run_cli("run -q" + window + "--set source.pad=3s " + format_example("bdf"), inputs.dir.path());
  ASSERT_EQ(padded.exit_code, 0) << padded.err;
  EXPECT_EQ(padded.err.find("filter orders"), std::string::npos) << padded.err;
  // "stim" every 5 s from 2.5 s in a 60 s recording: the first window (from 2 s) lacks 1 s of
  // padding before it, the last (to 58 s) 1 s after it.
  EXPECT_NE(padded.err.find("pad=768 samples reaches past the recording's ends for 2 of 12 epochs (at 2 s, 57 s)"),
            std::string::npos)
      << padded.err;
  std::ifstream in(inputs.dir / "out" / "bdf_example" / "result.json");
  const json result = json::parse(in);
  EXPECT_EQ(result["input"]["shape"], json({12, 5, 256 + 2 * 768}));
  EXPECT_EQ(result["input"]["pad_samples"], 768);
  EXPECT_EQ(result["input"]["padding_missing"][0]["missing_before_samples"], 256);
  EXPECT_EQ(result["input"]["padding_missing"][1]["missing_after_samples"], 256);
  Shape shape;
  testing::load_doubles(inputs.dir / "out" / "bdf_example" / "pac.npy", &shape);
  EXPECT_EQ(shape, (Shape{12, 5, 10, 5}));
  // Half a second analysed is less than a cycle of 1.5 Hz: the filters are whole, the bins are not.
  const auto shorter = run_cli("run -q" + window + "--set source.pad=3s --set source.window=-0.25s:0.25s " +
                               format_example("bdf"), inputs.dir.path());
  ASSERT_EQ(shorter.exit_code, 0) << shorter.err;
  EXPECT_NE(shorter.err.find("the window analysed (128 samples, 0.5 s, once pad= is cropped) holds less than one "
                             "cycle of the lowest phase band (1.5 Hz: 0.666667 s)"),
            std::string::npos)
      << shorter.err;
}

TEST(FormatExamples, Hdf5ExampleTakesFsAndChannelNamesFromAttributes) {
  const ExampleInputs inputs;
  const auto r = run_example(inputs, "hdf5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const hdf5::QuietErrors quiet;
  const Id file(H5Fopen((inputs.dir / "out" / "hdf5_example" / "result.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT),
                H5Fclose);
  ASSERT_TRUE(file);
  EXPECT_EQ(dataset_shape(file.get(), "/pac"), (Shape{8, 8, 5, 5}));
  const Id input(H5Gopen2(file.get(), "/input", H5P_DEFAULT), H5Gclose);
  EXPECT_EQ(hdf5::read_string_attribute(input.get(), "fs_from", "input").value().at(0), "attribute /eeg@fs");
  EXPECT_EQ(hdf5::read_number_attribute(input.get(), "sample_rate_hz", "input").value(), 256.0);
}

// The Python read-back docs/formats.md shows, run as written on the EDF example's result. Needs a
// python3 with h5py (Debian python3-h5py); skipped without one.
TEST(FormatExamples, TheDocumentedH5pyReadBackRunsOnTheHdf5Result) {
  std::string python;
  for (const char* candidate : {"python3", "/usr/bin/python3"})
    if (testing::run_program(candidate, "-c 'import h5py'", fs::temp_directory_path()).exit_code == 0) {
      python = candidate;
      break;
    }
  if (python.empty()) GTEST_SKIP() << "no python3 with h5py (Debian python3-h5py)";
  std::ifstream doc(fs::path(PACFLOW_SOURCE_DIR) / "docs" / "formats.md");
  const std::string text((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
  const auto marker = text.find("<!-- h5py-example");
  ASSERT_NE(marker, std::string::npos) << "docs/formats.md lost its h5py example";
  const auto begin = text.find("```python\n", marker) + 10;
  const auto end = text.find("```", begin);
  const ExampleInputs inputs;
  inputs.dir.write("read_back.py", text.substr(begin, end - begin));
  ASSERT_EQ(run_example(inputs, "edf").exit_code, 0);
  const auto r = testing::run_program(python, "read_back.py", inputs.dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("pac_z (29, 6, 5, 5) channels ['Fz', 'Cz', 'Pz', 'Oz', 'C3', 'C4'] surrogates 40"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Fz: peak z"), std::string::npos) << r.out;
}

TEST(FormatExamples, HostileRecordingsExitWithCode2NamingTheFile) {
  const ExampleInputs inputs;
  fs::resize_file(inputs.input("recording.edf"), fs::file_size(inputs.input("recording.edf")) - 1000);
  const auto cut = run_example(inputs, "edf");
  EXPECT_EQ(cut.exit_code, 2);
  EXPECT_NE(cut.err.find("recording.edf: not a valid EDF/BDF file: the header declares 60 data records"),
            std::string::npos)
      << cut.err;

  {  // one NaN deep inside the HDF5 recording: found while the batch holding it is read
    const hdf5::QuietErrors quiet;
    const Id file(H5Fopen(inputs.input("recording.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    const Id dataset(H5Dopen2(file.get(), "/eeg", H5P_DEFAULT), H5Dclose);
    const Id space(H5Dget_space(dataset.get()), H5Sclose);
    const hsize_t at[3] = {6, 3, 500}, one[3] = {1, 1, 1};
    H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, at, nullptr, one, nullptr);
    const Id memory(H5Screate_simple(3, one, nullptr), H5Sclose);
    const float nan = NAN;
    ASSERT_GE(H5Dwrite(dataset.get(), H5T_NATIVE_FLOAT, memory.get(), space.get(), H5P_DEFAULT, &nan), 0);
  }
  const auto nan = run_example(inputs, "hdf5");
  EXPECT_EQ(nan.exit_code, 2);
  EXPECT_NE(nan.err.find("recording.h5: NaN at epoch 6, channel 3, sample 500"), std::string::npos) << nan.err;
  EXPECT_FALSE(fs::exists(inputs.dir / "out" / "hdf5_example" / "result.h5"));
}

}  // namespace
}  // namespace pacflow
