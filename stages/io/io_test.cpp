#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "engine/api/errors.hpp"
#include "stages/builtin.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/api/plan_report.hpp"
#include "engine/io/npy.hpp"
#include "stages/io/npy/npy_source.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow::stages {
namespace {

TEST(NpySource, ReadsFixtureShapeAndRowsExactly) {
  const auto path = (testing::data_dir() / "small" / "x.npy").string();
  const auto source = make_element<NpySource>({{"path", path}, {"fs", 256}});
  const StreamInfo s = source->open({});
  EXPECT_EQ(s.leading_dims, (Shape{2, 3}));
  EXPECT_EQ(s.series_length, 1024);
  EXPECT_EQ(s.description["dtype"], "float32");
  EXPECT_EQ(s.description["sha256"].get<std::string>().size(), 64u);
  const auto all = testing::load_floats(path);
  std::vector<float> rows(2 * 1024);
  source->read(3, 2, rows.data());
  for (std::size_t i = 0; i < rows.size(); ++i) ASSERT_EQ(rows[i], all[3 * 1024 + i]);
}

// A file of many batches through the memory map: every batch equals the same rows of the array.
TEST(NpySource, ReadsAFileOfManyBatchesThroughTheMapExactly) {
  const auto path = std::filesystem::temp_directory_path() / ("pacflow_batches_" + std::to_string(::getpid()) + ".npy");
  constexpr std::int64_t E = 6, C = 7, T = 3001;  // rows of 12004 bytes: batches straddle pages
  std::vector<float> all(static_cast<std::size_t>(E * C * T));
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<float>(i % 9973) * 0.25f - 100.0f;
  {
    NpyWriter w(path, {E, C, T});
    w.append(all.data(), static_cast<std::int64_t>(all.size()));
    w.commit();
  }
  const auto source = make_element<NpySource>({{"path", path.string()}, {"fs", 1000}});
  const StreamInfo s = source->open({});
  EXPECT_EQ(s.leading_dims, (Shape{E, C}));
  constexpr std::int64_t kBatch = 5;
  std::vector<float> rows(static_cast<std::size_t>(kBatch * T));
  for (std::int64_t first = 0; first < E * C; first += kBatch) {
    const std::int64_t count = std::min(kBatch, E * C - first);
    source->read(first, count, rows.data());
    for (std::int64_t i = 0; i < count * T; ++i)
      ASSERT_EQ(rows[static_cast<std::size_t>(i)], all[static_cast<std::size_t>(first * T + i)]) << "batch at " << first;
  }
  std::filesystem::remove(path);
}

TEST(NpySource, RejectsNanNamingTheSeries) {
  const auto path = std::filesystem::temp_directory_path() / ("pacflow_nan_" + std::to_string(::getpid()) + ".npy");
  {
    NpyWriter w(path, {2, 3, 8});
    std::vector<float> v(48);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 8);
    v[1 * 24 + 2 * 8 + 5] = NAN;  // epoch 1, channel 2, sample 5
    w.append(v.data(), 48);
    w.commit();
  }
  const auto source = make_element<NpySource>({{"path", path.string()}, {"fs", 100}});
  source->open({});
  std::vector<float> out(6 * 8);
  try {
    source->read(0, 6, out.data());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("NaN at epoch 1, channel 2, sample 5"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

// [E][C][S][T]: segments are a third leading dim, and errors name the segment.
TEST(NpySource, ReadsFourDimensionalArraysAsSegmentsAndRejectsFive) {
  const auto path = std::filesystem::temp_directory_path() / ("pacflow_4d_" + std::to_string(::getpid()) + ".npy");
  {
    NpyWriter w(path, {2, 3, 2, 4});
    std::vector<float> v(48);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 4);
    v[((1 * 3 + 2) * 2 + 1) * 4 + 3] = INFINITY;  // epoch 1, channel 2, segment 1, sample 3
    w.append(v.data(), 48);
    w.commit();
  }
  const auto source = make_element<NpySource>({{"path", path.string()}, {"fs", 100}});
  const StreamInfo s = source->open({});
  EXPECT_EQ(s.leading_dims, (Shape{2, 3, 2}));
  EXPECT_EQ(s.leading_names, (std::vector<std::string>{"epochs", "channels", "segments"}));
  std::vector<float> out(12 * 4);
  try {
    source->read(0, 12, out.data());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("infinite value at epoch 1, channel 2, segment 1, sample 3: infinite in the "
                                         "file, or a float64 value there beyond float32's range"),
              std::string::npos)
        << e.what();
  }
  {
    NpyWriter w(path, {1, 1, 1, 2, 4});
    std::vector<float> v(8, 0.0f);
    w.append(v.data(), 8);
    w.commit();
  }
  const auto five = make_element<NpySource>({{"path", path.string()}, {"fs", 100}});
  EXPECT_THROW(five->open({}), InputError);
  std::filesystem::remove(path);
}

// fs and nan_policy are checked as declared, before the file is opened, naming the parameter.
TEST(NpySource, RefusesANonPositiveFsAndAnUnknownNanPolicy) {
  const auto refusal = [](const json& extra) {
    json params = {{"path", "x.npy"}, {"fs", 100}};
    params.update(extra);
    try {
      make_element<NpySource>(params);
    } catch (const ParamError& e) {
      return e.param() + ": " + e.bare_message();
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(refusal({{"fs", 0}}), "fs: must be greater than 0, got 0");
  const std::string policy = refusal({{"nan_policy", "ignore"}});
  EXPECT_EQ(policy.rfind("nan_policy: must be one of reject, zero, skip, got \"ignore\"", 0), 0u) << policy;
  EXPECT_EQ(refusal({{"nan_policy", "skip"}, {"pad", "1s"}, {"layout", "ECT"}, {"key", "x"}}), "(accepted)");
}


// A missing input keeps its type under the builder's context (a MissingFileError nested in the
// located InputError), so callers tell it apart (the Python module raises FileNotFoundError).
TEST(NpySource, AMissingFileIsAMissingFileErrorUnderItsContext) {
  const std::string path = (std::filesystem::temp_directory_path() / "pacflow_absent.npy").string();
  try {
    Pipeline(builtin_registry()).source("npy", {{"path", path}, {"fs", 256}}).stage("bandpass").stage("hilbert")
        .stage("mi").sink("npy", {{"dir", "out/absent"}}).validate();
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), fmt::format("source \"npy\", parameter \"path\": {}: no such file", path));
    bool missing = false;
    try {
      std::rethrow_if_nested(e);
    } catch (const ParamError& param) {
      try {
        std::rethrow_if_nested(param);
      } catch (const MissingFileError& file) {
        missing = file.path() == path;
      }
    }
    EXPECT_TRUE(missing) << "the MissingFileError was lost";
  }
}

}  // namespace
}  // namespace pacflow::stages
