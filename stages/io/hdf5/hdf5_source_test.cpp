// The hdf5 source against files the tests write with libhdf5: values equal to what was written for
// every axis order and storage type, fs from attributes, hyperslab reads, and one clear error naming
// the file for each kind of bad input.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <numeric>

#include "engine/api/errors.hpp"
#include "stages/io/hdf5/hdf5_attributes.hpp"
#include "stages/io/hdf5/hdf5_handle.hpp"
#include "stages/io/hdf5/hdf5_source.hpp"
#include "tests/support/cli_runner.hpp"

namespace pacflow::stages {
namespace {

namespace fs = std::filesystem;
using hdf5::Id;

// The sample every test writes at (epoch, channel, time): exact in float32 and in int16.
double sample(std::int64_t e, std::int64_t c, std::int64_t t) {
  return static_cast<double>(e * 1000 + c * 100 + t % 97) - 300.0;
}

struct Dataset {
  std::string name = "/data";
  std::string layout = "ECT";
  std::int64_t epochs = 3, channels = 4, length = 50;
  hid_t file_type = H5T_IEEE_F32LE;
  std::vector<hsize_t> chunk;  // empty: contiguous; else chunked and deflated
  json attributes = json::object();

  Dataset& with_layout(std::string l) { return layout = std::move(l), *this; }
  Dataset& with_shape(std::int64_t e, std::int64_t c, std::int64_t t) { return epochs = e, channels = c, length = t, *this; }
  Dataset& with_type(hid_t t) { return file_type = t, *this; }
  Dataset& with_chunk(std::vector<hsize_t> c) { return chunk = std::move(c), *this; }
  Dataset& with_attributes(json a) { return attributes = std::move(a), *this; }
};

// Writes d's samples with its axes in d.layout order; returns the file path.
fs::path write_dataset(const fs::path& path, const Dataset& d, const json& root_attributes = json::object()) {
  const hdf5::QuietErrors quiet;
  Id file = hdf5::check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, path, "create");
  std::vector<hsize_t> dims;
  for (char axis : d.layout)
    dims.push_back(static_cast<hsize_t>(axis == 'E' ? d.epochs : axis == 'C' ? d.channels : d.length));
  std::vector<double> values(static_cast<std::size_t>(d.epochs * d.channels * d.length));
  std::vector<hsize_t> index(dims.size());
  for (std::size_t flat = 0; flat < values.size(); ++flat) {  // row-major walk over the file's axes
    std::size_t rest = flat;
    for (std::size_t k = dims.size(); k-- > 0;) {
      index[k] = rest % dims[k];
      rest /= dims[k];
    }
    std::int64_t e = 0, c = 0, t = 0;
    for (std::size_t k = 0; k < dims.size(); ++k)
      (d.layout[k] == 'E' ? e : d.layout[k] == 'C' ? c : t) = static_cast<std::int64_t>(index[k]);
    values[flat] = sample(e, c, t);
  }
  const Id space = hdf5::check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose, path, "space");
  const Id create = hdf5::check(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, path, "plist");
  if (!d.chunk.empty()) {
    H5Pset_chunk(create.get(), static_cast<int>(d.chunk.size()), d.chunk.data());
    H5Pset_deflate(create.get(), 6);
  }
  const Id links = hdf5::check(H5Pcreate(H5P_LINK_CREATE), H5Pclose, path, "plist");
  H5Pset_create_intermediate_group(links.get(), 1);
  const Id dataset = hdf5::check(H5Dcreate2(file.get(), d.name.c_str(), d.file_type, space.get(), links.get(),
                                            create.get(), H5P_DEFAULT),
                                 H5Dclose, path, "dataset");
  hdf5::check(H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), path, "write");
  hdf5::write_attributes(dataset.get(), d.attributes, path);
  hdf5::write_attributes(file.get(), root_attributes, path);
  return path;
}

std::unique_ptr<Hdf5Source> hdf5_make_source(const fs::path& path, json params) {
  params["path"] = path.string();
  if (!params.contains("dataset")) params["dataset"] = "/data";
  return make_element<Hdf5Source>(params);
}

// Reads every series in batches of `batch` and checks each sample against sample().
void expect_all_samples(Hdf5Source& source, const StreamInfo& s, std::int64_t batch) {
  const std::int64_t n = s.series_count(), T = s.series_length, C = s.leading_dims[1];
  for (std::int64_t first = 0; first < n; first += batch) {
    const std::int64_t count = std::min(batch, n - first);
    std::vector<float> out(static_cast<std::size_t>(count * T));
    source.read(first, count, out.data());
    for (std::int64_t i = 0; i < count; ++i)
      for (std::int64_t t = 0; t < T; ++t)
        ASSERT_EQ(out[static_cast<std::size_t>(i * T + t)], sample((first + i) / C, (first + i) % C, t))
            << "series " << first + i << " sample " << t;
  }
}

std::string hdf5_open_error(Hdf5Source& source) {
  try {
    source.open({});
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Hdf5Source, ReadsAnEctDatasetExactlyWithFsFromItsAttribute) {
  testing::ScratchDir dir("h5_ect");
  const auto path = write_dataset(dir / "a.h5", Dataset().with_attributes({{"fs", 250.0}}));
  const auto source = hdf5_make_source(path, {});
  const StreamInfo s = source->open({});
  EXPECT_EQ(s.leading_dims, (Shape{3, 4}));
  EXPECT_EQ(s.series_length, 50);
  EXPECT_EQ(s.sample_rate, 250.0);
  EXPECT_EQ(s.description["fs_from"], "attribute /data@fs");
  EXPECT_EQ(s.description["dtype"], "float32");
  EXPECT_EQ(s.description["sha256"].get<std::string>().size(), 64u);
  expect_all_samples(*source, s, 5);  // batches of 5 cross epoch boundaries
}

// pad=: context held in each series at the attribute's sample rate (20 ms at 250 Hz: 5 samples).
TEST(Hdf5Source, PadNamesContextHeldInTheSeries) {
  testing::ScratchDir dir("h5_pad");
  const auto path = write_dataset(dir / "a.h5", Dataset().with_attributes({{"fs", 250.0}}));
  const auto padded = hdf5_make_source(path, {{"pad", "20ms"}});
  const StreamInfo s = padded->open({});
  EXPECT_EQ(s.series_length, 50);
  EXPECT_EQ(s.pad, 5);
  EXPECT_EQ(hdf5_make_source(path, {{"pad", "24smp"}})->open({}).pad, 24);  // 2 samples left between
  const auto all = hdf5_make_source(path, {{"pad", "25smp"}});
  EXPECT_NE(hdf5_open_error(*all).find("25 samples at each end of series of 50 samples leave 0 to analyse"),
            std::string::npos);
}

TEST(Hdf5Source, ReadsEveryAxisOrderAndStorageTypeAsTheSameSeries) {
  testing::ScratchDir dir("h5_layouts");
  const std::vector<std::pair<std::string, hid_t>> cases = {
      {"CTE", H5T_IEEE_F32LE}, {"TCE", H5T_IEEE_F64BE}, {"TEC", H5T_STD_I16BE},
      {"CET", H5T_STD_I32LE},  {"ETC", H5T_IEEE_F64LE}, {"ECT", H5T_STD_I16LE}};
  for (const auto& [layout, type] : cases) {
    SCOPED_TRACE(layout);
    const auto path = write_dataset(dir / (layout + ".h5"), Dataset().with_layout(layout).with_type(type));
    const auto source = hdf5_make_source(path, {{"layout", layout}, {"fs", 100}});
    const StreamInfo s = source->open({});
    EXPECT_EQ(s.leading_dims, (Shape{3, 4}));
    EXPECT_EQ(s.description["fs_from"], "parameter fs");
    expect_all_samples(*source, s, 3);
  }
  const auto two_d = write_dataset(dir / "tc.h5", Dataset().with_layout("TC").with_shape(1, 4, 50));
  const auto source = hdf5_make_source(two_d, {{"layout", "TC"}, {"fs", 100}});
  const StreamInfo s = source->open({});
  EXPECT_EQ(s.leading_dims, (Shape{1, 4}));
  expect_all_samples(*source, s, 4);
  EXPECT_EQ(source->open({}).description["dtype"], "float32");
  const auto big_endian = write_dataset(dir / "be.h5", Dataset().with_type(H5T_STD_I16BE));
  EXPECT_EQ(hdf5_make_source(big_endian, {{"fs", 1}})->open({}).description["dtype"], "int16 big-endian");
}

TEST(Hdf5Source, TakesFsFromTheRootWhenTheDatasetHasNoneAndTheParameterOverBoth) {
  testing::ScratchDir dir("h5_fs");
  const auto path = write_dataset(dir / "a.h5", Dataset(), {{"sampling_rate", 512}});
  const auto from_root = hdf5_make_source(path, {{"fs_attribute", "sampling_rate"}});
  EXPECT_EQ(from_root->open({}).sample_rate, 512.0);
  const auto given = hdf5_make_source(path, {{"fs_attribute", "sampling_rate"}, {"fs", 300}});
  EXPECT_EQ(given->open({}).sample_rate, 300.0);
  const auto none = hdf5_make_source(path, {});
  const std::string message = hdf5_open_error(*none);
  EXPECT_NE(message.find("no sample rate"), std::string::npos) << message;
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
}

TEST(Hdf5Source, NamesChannelsFromTheLabelsAttribute) {
  testing::ScratchDir dir("h5_labels");
  const auto path = write_dataset(
      dir / "a.h5", Dataset().with_shape(3, 3, 50).with_attributes({{"fs", 100}, {"channel_names", {"Fz", "Cz", "Pz"}}}));
  const StreamInfo s = hdf5_make_source(path, {})->open({});
  ASSERT_EQ(s.labels.size(), 2u);
  EXPECT_EQ(s.labels[1], (std::vector<std::string>{"Fz", "Cz", "Pz"}));
  const auto wrong = write_dataset(dir / "b.h5", Dataset().with_shape(3, 3, 50).with_attributes({{"fs", 100}, {"channel_names", {"Fz"}}}));
  const auto source = hdf5_make_source(wrong, {});
  EXPECT_NE(hdf5_open_error(*source).find("names 1 channels, the dataset has 3"), std::string::npos);
}

// The dataset is chunked one epoch per chunk and deflated; the last chunk's bytes are then
// overwritten. Reading batch by batch must succeed for every epoch before it: the source never
// reads what the batch does not need.
TEST(Hdf5Source, ReadsOnlyTheHyperslabsOfEachBatch) {
  testing::ScratchDir dir("h5_lazy");
  const Dataset d = Dataset().with_shape(6, 4, 400).with_chunk({1, 4, 400}).with_attributes({{"fs", 100}});
  const auto path = write_dataset(dir / "a.h5", d);
  haddr_t offset = 0;
  hsize_t size = 0;
  {
    const Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    const Id dataset(H5Dopen2(file.get(), "/data", H5P_DEFAULT), H5Dclose);
    const hsize_t last[3] = {5, 0, 0};
    unsigned mask = 0;
    ASSERT_GE(H5Dget_chunk_info_by_coord(dataset.get(), last, &mask, &offset, &size), 0);
  }
  ASSERT_GT(fs::file_size(path), 4 * size) << "the file must hold far more than one batch";
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(offset));
    const std::string garbage(static_cast<std::size_t>(size), '\x5a');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  const auto source = hdf5_make_source(path, {});
  const StreamInfo s = source->open({});
  std::vector<float> out(4 * 400);
  for (std::int64_t epoch = 0; epoch < 5; ++epoch) {
    source->read(epoch * 4, 4, out.data());
    for (std::int64_t c = 0; c < 4; ++c)
      for (std::int64_t t = 0; t < 400; ++t)
        ASSERT_EQ(out[static_cast<std::size_t>(c * 400 + t)], sample(epoch, c, t));
  }
  try {
    source->read(20, 4, out.data());
    FAIL() << "the corrupted chunk was read without error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("epoch 5"), std::string::npos) << e.what();
  }
}

TEST(Hdf5Source, RejectsNanNamingEpochChannelAndSample) {
  testing::ScratchDir dir("h5_nan");
  const auto path = write_dataset(dir / "a.h5", Dataset().with_attributes({{"fs", 100}}));
  {
    const Id file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    const Id dataset(H5Dopen2(file.get(), "/data", H5P_DEFAULT), H5Dclose);
    const Id space(H5Dget_space(dataset.get()), H5Sclose);
    const hsize_t at[3] = {2, 1, 17}, one[3] = {1, 1, 1};
    H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, at, nullptr, one, nullptr);
    const Id memory(H5Screate_simple(3, one, nullptr), H5Sclose);
    const float nan = NAN;
    ASSERT_GE(H5Dwrite(dataset.get(), H5T_NATIVE_FLOAT, memory.get(), space.get(), H5P_DEFAULT, &nan), 0);
  }
  const auto source = hdf5_make_source(path, {});
  source->open({});
  std::vector<float> out(12 * 50);
  try {
    source->read(0, 12, out.data());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              path.string() + ": NaN at epoch 2, channel 1, sample 17 (nan_policy=zero or skip lets the run go on)");
  }
}

TEST(Hdf5Source, GivesOneClearErrorNamingTheFileForEachBadInput) {
  testing::ScratchDir dir("h5_bad");
  const auto good = write_dataset(dir / "good.h5", Dataset().with_attributes({{"fs", 100}}));
  const auto expect_error = [](const fs::path& path, json params, const std::string& part) {
    SCOPED_TRACE(part);
    const auto source = hdf5_make_source(path, std::move(params));
    const std::string message = hdf5_open_error(*source);
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_NE(message.find(part), std::string::npos) << message;
  };
  expect_error(dir / "missing.h5", {}, "no such file");
  std::ofstream(dir / "text.h5") << "not hdf5 at all\n";
  expect_error(dir / "text.h5", {}, "not an HDF5 file");
  {  // truncated: the superblock survives, the objects it points to do not
    const auto bytes = fs::file_size(good);
    fs::copy_file(good, dir / "cut.h5");
    fs::resize_file(dir / "cut.h5", bytes / 3);
  }
  const auto cut = hdf5_make_source(dir / "cut.h5", {});
  const std::string cut_message = hdf5_open_error(*cut);
  EXPECT_NE(cut_message.find((dir / "cut.h5").string()), std::string::npos) << cut_message;
  expect_error(good, {{"dataset", "/eeg"}}, "no dataset \"/eeg\"; the file has /data");
  expect_error(good, {{"layout", "CT"}}, "layout=\"CT\" names 2");
  {
    const Id file(H5Fopen(good.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    const Id type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), 8);
    const hsize_t n = 4;
    const Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
    const Id text(H5Dcreate2(file.get(), "/names", type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                  H5Dclose);
  }
  expect_error(good, {{"dataset", "/names"}, {"layout", "T"}}, "does not hold plain integers or floats");
  const auto nonsense_fs = write_dataset(dir / "fs.h5", Dataset().with_attributes({{"fs", -5}}));
  expect_error(nonsense_fs, {}, "is not a sample rate");
}

TEST(Hdf5Source, RefusesLayoutsThatAreNotAPermutationOfEct) {
  for (const char* layout : {"ECX", "EET", "EC", ""}) {
    SCOPED_TRACE(layout);
    try {
      make_element<Hdf5Source>({{"path", "x.h5"}, {"dataset", "/d"}, {"layout", layout}});
      FAIL();
    } catch (const ParamError& e) {
      EXPECT_EQ(e.param(), "layout");
    }
  }
}

// The declared bounds and choices: refused by the engine before any file is opened, naming the
// parameter.
TEST(Hdf5Source, RefusesANonPositiveFsAndAnUnknownNanPolicy) {
  const auto refusal = [](const json& extra) {
    json params = {{"path", "x.h5"}, {"dataset", "/d"}};
    params.update(extra);
    try {
      make_element<Hdf5Source>(params);
    } catch (const ParamError& e) {
      return e.param() + ": " + e.bare_message();
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(refusal({{"fs", 0}}), "fs: must be greater than 0, got 0");
  EXPECT_EQ(refusal({{"fs", -250.5}}), "fs: must be greater than 0, got -250.5");
  const std::string policy = refusal({{"nan_policy", "ignore"}});
  EXPECT_EQ(policy.rfind("nan_policy: must be one of reject, zero, skip, got \"ignore\"", 0), 0u) << policy;
  for (const char* accepted : {"reject", "zero", "skip"}) EXPECT_EQ(refusal({{"nan_policy", accepted}}), "(accepted)");
  EXPECT_EQ(refusal({{"fs", 0.001}}), "(accepted)");
}

}  // namespace
}  // namespace pacflow::stages
